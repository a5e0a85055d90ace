# Writes OUT, a C++ file defining frugal::embedded_ui_files(): the bytes of each file in FILES
# (paths separated by '|'), named by its file name. Run by the build whenever one of
# them changes (CMakeLists.txt, "The dashboard's assets").
string(REPLACE "|" ";" FILES "${FILES}")
set(ENTRIES "")
set(ARRAYS "")
set(i 0)
foreach(path ${FILES})
  get_filename_component(name ${path} NAME)
  file(READ ${path} CONTENT HEX)
  string(LENGTH "${CONTENT}" HEXLEN)
  math(EXPR SIZE "${HEXLEN} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${CONTENT}")
  string(APPEND ARRAYS "constexpr unsigned char kFile${i}[] = {${BYTES} 0};\n")
  string(APPEND ENTRIES "    {\"${name}\", {reinterpret_cast<const char*>(kFile${i}), ${SIZE}}},\n")
  math(EXPR i "${i} + 1")
endforeach()
file(WRITE ${OUT} "// Generated from ui/ by cmake/embed_ui.cmake; do not edit.\n"
  "#include \"service/ui_assets.h\"\n\nnamespace frugal {\nnamespace {\n${ARRAYS}"
  "const EmbeddedFile kFiles[] = {\n${ENTRIES}};\n}  // namespace\n\n"
  "std::span<const EmbeddedFile> embedded_ui_files() { return kFiles; }\n\n"
  "}  // namespace frugal\n")
