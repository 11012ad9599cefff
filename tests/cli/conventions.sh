#!/bin/bash
# The conventions every test script follows (README, Testing), checked so a new
# script cannot quietly break them: each tests/cli/*.sh is a bash script that
# stops at any failing command, pipelines included ('set -euo pipefail' before
# its first command), and a skip exits 77 (ctest's SKIP_RETURN_CODE, so it is
# reported as skipped), never 0.
set -euo pipefail
fails=0
for f in "$CCT_SRC"/tests/cli/*.sh; do
  n=${f##*/}
  [ "$(head -n 1 "$f")" = "#!/bin/bash" ] || { echo "FAIL $n: first line is not '#!/bin/bash'"; fails=$((fails + 1)); }
  # the first line that is not a comment or blank must be 'set -euo pipefail'
  first=$(awk '!/^[[:space:]]*(#|$)/ { print; exit }' "$f")
  [ "$first" = "set -euo pipefail" ] || { echo "FAIL $n: first command is '$first', not 'set -euo pipefail'"; fails=$((fails + 1)); }
  if grep -n -i -E 'skip[^;]*; *exit 0\b' "$f"; then echo "FAIL $n: a skip exits 0 (use exit 77)"; fails=$((fails + 1)); fi
done
grep -q 'SKIP_RETURN_CODE 77' "$CCT_SRC/tests/CMakeLists.txt" || { echo "FAIL: tests/CMakeLists.txt does not set SKIP_RETURN_CODE 77"; fails=$((fails + 1)); }
[ "$fails" = 0 ] || exit 1
echo "ok conventions: $(ls "$CCT_SRC"/tests/cli/*.sh | wc -l) scripts use bash with set -euo pipefail; no skip exits 0"
