# Writes OUT, a C++ file defining frugal::builtin_catalog_yaml() that returns IN's text.
file(READ ${IN} CONTENT HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${CONTENT}")
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\n#include <string_view>\n"
  "namespace frugal {\nnamespace {\nconstexpr char kData[] = {${BYTES} 0};\n}\n"
  "std::string_view builtin_catalog_yaml() { return {kData, sizeof(kData) - 1}; }\n}\n")
