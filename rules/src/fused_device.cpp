// The device programs of compiled fused kernels (Note [Fused kernels on a device] in
// include/vmap/fused.hpp): the headers NVRTC reads them with, and the entry of each.
#include "fused_device_program.hpp"

#include <string>

namespace vmap::batched::detail {

// The texts of the headers a fused kernel's device program includes (rules/CMakeLists.txt).
extern const int kFusedDeviceHeaderCount;
extern const char* const kFusedDeviceHeaderNames[];
extern const char* const kFusedDeviceHeaderTexts[];

namespace {

// The standard headers the element types include, as libcu++'s (NVRTC has no standard
// library); the host-only ones (strings, streams, exceptions: not in device programs) empty.
constexpr const char* kForwarded[] = {"array",  "bit",    "cmath",   "concepts",   "cstddef",
                                      "cstdint", "initializer_list", "limits", "optional",
                                      "span",   "tuple",  "type_traits", "utility"};
constexpr const char* kHostOnly[] = {"iosfwd", "stdexcept", "string", "vector"};

struct Headers {
  std::vector<std::string> names, texts;
  std::vector<const char*> name_pointers, text_pointers;

  Headers() {
    for (const char* name : kForwarded) {
      names.emplace_back(name);
      texts.push_back(std::string("#pragma once\n#include <cuda/std/") + name +
                      ">\nnamespace std { using namespace cuda::std; }\n");
    }
    for (const char* name : kHostOnly) {
      names.emplace_back(name);
      texts.emplace_back("#pragma once\n");
    }
    for (int h = 0; h < kFusedDeviceHeaderCount; ++h) {
      names.emplace_back(kFusedDeviceHeaderNames[h]);
      texts.emplace_back(kFusedDeviceHeaderTexts[h]);
    }
    for (std::size_t h = 0; h < names.size(); ++h) {
      name_pointers.push_back(names[h].c_str());
      text_pointers.push_back(texts[h].c_str());
    }
  }
};

const char* element_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::Float32: return "float";
    case Dtype::Float64: return "double";
    case Dtype::Int32: return "int32_t";
    case Dtype::Int64: return "int64_t";
    case Dtype::Bool: return "bool";
  }
  return "float";
}

}  // namespace

void with_fused_device_headers(vmap::detail::CompiledKernelCall& call) {
  static const Headers headers;
  call.header_count = static_cast<int>(headers.names.size());
  call.header_names = headers.name_pointers.data();
  call.header_texts = headers.text_pointers.data();
}

std::string fused_device_program(DeviceCode code, Dtype element, Dtype result,
                                 const std::vector<DeviceArgument>& arguments, bool sum,
                                 bool squared) {
  const std::string t = element_name(element), r = element_name(result);
  std::string call;
  int tensors = 0;
  for (std::size_t a = 0; a < arguments.size(); ++a) {
    call += a ? ", " : "";
    if (arguments[a].number_type)
      call += "vmap_fused::number<" + std::string(arguments[a].number_type) + ">(args, " +
              std::to_string(a) + ")";
    else {
      const std::string n = std::to_string(tensors++);
      call += "vmap::batched::Element<" + t + ">{static_cast<const " + t + "*>(bases[" + n +
              "])[at[" + n + "]]}";
    }
  }
  return "#include <vmap/fused_device.hpp>\n"
         "namespace " + std::string(code.alias) + " = vmap::batched;\n"
         "extern \"C\" __global__ void vmap_entry(const vmap_fused::Args args) {\n"
         "  const auto body =\n" +
         std::string(code.lambda) +
         ";\n"
         "  const auto element = [&](const void* const* bases, const int64_t* at) {\n"
         "    const auto value = body(" + call + ");\n" +
         (squared ? "    return static_cast<" + r + ">((value * value).value);\n"
                  : "    return static_cast<" + r + ">(value.value);\n") +
         "  };\n"
         "  const vmap_fused::Thread thread{blockIdx.x, threadIdx.x, blockDim.x};\n" +
         (sum ? "  __shared__ double staged[vmap_fused::kStagedBytes / sizeof(double)];\n"
                "  if (args.chunk > 0)\n"
                "    vmap_fused::staged_sum<" + r + ", " + t + ", " + std::to_string(tensors) +
                    ">(args, thread, reinterpret_cast<unsigned char*>(staged), element);\n"
                "  else\n"
                "    vmap_fused::sum<" + r + ", " + std::to_string(tensors) +
                    ">(args, thread, element);\n"
              : "  vmap_fused::store<" + r + ", " + std::to_string(tensors) +
                    ">(args, thread, element);\n") +
         "}\n";
}

}  // namespace vmap::batched::detail
