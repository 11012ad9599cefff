#!/bin/bash
# The conventions of the test scripts (README, Testing), checked so a new script
# cannot quietly break them: ctest runs each tests/cli/*.sh with 'bash -euo
# pipefail' (any failing command fails it, a pipeline's included), a skip exits
# 77 (ctest's SKIP_RETURN_CODE, reported as skipped), never 0, and a script is
# '#!/bin/bash' and says 'set -euo pipefail' first, so it behaves the same when
# run by hand.
set -euo pipefail
fails=0
cm="$CCT_SRC/tests/CMakeLists.txt"
grep -q 'COMMAND bash -euo pipefail ${script}' "$cm" || { echo "FAIL: ctest does not run the scripts with bash -euo pipefail"; fails=$((fails + 1)); }
grep -q 'SKIP_RETURN_CODE 77' "$cm" || { echo "FAIL: tests/CMakeLists.txt does not set SKIP_RETURN_CODE 77"; fails=$((fails + 1)); }
for f in "$CCT_SRC"/tests/cli/*.sh; do
  n=${f##*/}
  if grep -n -i -E 'skip[^;]*; *exit 0\b' "$f"; then echo "FAIL $n: a skip exits 0 (use exit 77)"; fails=$((fails + 1)); fi
  [ "$(head -n 1 "$f")" = "#!/bin/bash" ] || { echo "FAIL $n: its first line is not '#!/bin/bash'"; fails=$((fails + 1)); }
  first=$(awk '!/^[[:space:]]*(#|$)/ { print; exit }' "$f")
  [ "$first" = "set -euo pipefail" ] || { echo "FAIL $n: its first command is '$first', not 'set -euo pipefail'"; fails=$((fails + 1)); }
done
[ "$fails" = 0 ] || exit 1
echo "ok conventions: $(ls "$CCT_SRC"/tests/cli/*.sh | wc -l) scripts run by bash -euo pipefail; no skip exits 0"
