# LLVM lit configuration of the tool's goldens (tests/transform/*.cpp, check/*.cpp) and
# refusals (errors/*.cpp): each file says how it is run in its `// RUN:` lines and what the
# output must hold in its `// CHECK:` lines, under the function or loop they check.
# ctest runs each file as transform.golden.<name> / transform.refusal.<name>
# (CMakeLists.txt); by hand, from the repository root, after building the tool:
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv tests/transform/while_loops.cpp \
#     --param root=$PWD --param tool=$PWD/build/release/transform/clang-vmap \
#     --param filecheck=/usr/lib/llvm-19/bin/FileCheck --param exec_root=/tmp/vmap-lit
# (a directory instead of a file runs all of them).
import os

import lit.formats

config.name = "clang-vmap"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp"]
config.excludes = ["harness", "random", "op_table", "line_directives", "check_fails"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = lit_config.params["exec_root"]

root = lit_config.params["root"]
# `not` and `count` beside FileCheck (/usr/bin/FileCheck-19 links into /usr/lib/llvm-19/bin).
tools = os.path.dirname(os.path.realpath(lit_config.params["filecheck"]))
config.environment["PATH"] = os.pathsep.join([tools, config.environment.get("PATH", "")])
config.substitutions += [
    ("%clang-vmap", lit_config.params["tool"]),
    ("%flags", f"-std=c++20 -I{root}/runtime/include -I{root}/rules/include"),
    ("%FileCheck", lit_config.params["filecheck"]),
    ("%refused-file-untouched",
     f"bash {root}/tests/transform/harness/refused_file_untouched.sh {lit_config.params['tool']}"),
    # The rewrite copies its input's CHECK lines (which would match themselves) and marks
    # lines with `#line` directives (line_directives/ tests those): neither is checked here.
    ("%strip", "sed -e '/\\/\\/[ \\t]*CHECK[-A-Z]*:/d' -e '/^#line [0-9]* \"/d'"),
]
