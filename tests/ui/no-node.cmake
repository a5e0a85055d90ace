# ui.* tests where CMake found no Node.js at configure time (CMakeLists.txt): skipped, or
# failed under FRUGAL_UI_REQUIRED or CI. scripts/ui-deps.sh installs Node.js; configure again.
if(DEFINED ENV{FRUGAL_UI_REQUIRED} OR DEFINED ENV{CI})
  message(FATAL_ERROR "FAIL: Node.js not found at configure time, and FRUGAL_UI_REQUIRED or CI "
                      "is set (run scripts/ui-deps.sh, then configure again)")
endif()
message("[  SKIPPED ] Node.js not found at configure time (scripts/ui-deps.sh installs it)")
