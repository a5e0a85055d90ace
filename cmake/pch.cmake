# Precompiled headers: the standard and third-party headers most files of a target include are
# parsed once per target instead of once per file (a third of the CI budget is compiling,
# three times: the normal, ASan and TSan builds). FRUGAL_PCH=OFF builds without them.
# The headers are force-included into every file of the target, so a file that forgets an
# include still compiles here; scripts/tidy.sh parses every file of src/ without them and fails
# on it.
option(FRUGAL_PCH "Precompile the common standard and third-party headers per target" ON)

set(FRUGAL_PCH_STD <algorithm> <cmath> <cstdint> <functional> <map> <memory> <optional> <set>
    <string> <string_view> <unordered_map> <utility> <vector> <fmt/format.h>)

# frugal_pch(TARGET [HEADER...]): the standard set plus the target's own heavy headers.
function(frugal_pch target)
  if(FRUGAL_PCH)
    target_precompile_headers(${target} PRIVATE ${FRUGAL_PCH_STD} ${ARGN})
  endif()
endfunction()
