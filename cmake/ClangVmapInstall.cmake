# `cmake --install` lays out the ClangVmap package: vmap::runtime and vmap::rules
# (libraries and headers), vmap::clang-vmap (transform/ installs it into the same export
# set), and clang_vmap_sources(), found with find_package(ClangVmap CONFIG).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(package_dir "${CMAKE_INSTALL_LIBDIR}/cmake/ClangVmap")

set(exported_libraries "")
foreach(library runtime rules)
  if(TARGET vmap_${library})
    set_target_properties(vmap_${library} PROPERTIES EXPORT_NAME ${library})
    list(APPEND exported_libraries vmap_${library})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${library}/include/
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
endforeach()
install(TARGETS ${exported_libraries} EXPORT ClangVmapTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ClangVmapTargets NAMESPACE vmap:: DESTINATION ${package_dir})

get_property(VMAP_HAVE_CUDA GLOBAL PROPERTY VMAP_HAVE_CUDA)  # runtime/cuda sets it
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/ClangVmapConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ClangVmapConfig.cmake
  INSTALL_DESTINATION ${package_dir})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/ClangVmapConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/ClangVmapConfig.cmake
  ${PROJECT_BINARY_DIR}/ClangVmapConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/ClangVmapSources.cmake
  ${CMAKE_CURRENT_LIST_DIR}/ClangVmapDiff.cmake
  ${CMAKE_CURRENT_LIST_DIR}/ClangVmapKeepGoing.cmake
  ${CMAKE_CURRENT_LIST_DIR}/ClangVmapScriptArgs.cmake
  DESTINATION ${package_dir})
