#!/bin/bash
# Archives of several runs: appending, --list, --remove, and the public SQL
# views answering the README's example questions (checked against values
# computed here from the runs' own tables).
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/a.sqlite"
"$CCTINGEST" --quiet --title cpi "$CCT_DATA/classic-hatchet-cpi" "$a"
"$CCTINGEST" --quiet --title gauss "$CCT_DATA/classic-hpcviewer-gauss" "$a"
"$CCTINGEST" --quiet --title osu "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
"$CCTINGEST" --list "$a" >"$t/list"
[ "$(awk 'NR > 1 {print $1 ":" $2 ":" $5}' "$t/list" | tr '\n' ' ')" = "1:cpi:60 2:gauss:3078 3:osu:1944 " ] ||
  { echo "FAIL --list:"; cat "$t/list"; exit 1; }
"$CCTINGEST" --quiet --remove 2 "$a"
[ "$(sqlite3 "$a" 'SELECT group_concat(run) FROM runs; SELECT count(*) FROM context WHERE run = 2;' | tr '\n' ' ')" = "1,3 0 " ] ||
  { echo "FAIL --remove"; exit 1; }
if "$CCTINGEST" --remove 2 "$a" 2>"$t/err"; then echo "FAIL --remove twice: exit 0"; exit 1; fi
grep -q "^cctingest: error: '.*' has no run 2$" "$t/err" || { echo "FAIL --remove twice:"; cat "$t/err"; exit 1; }

# The README's example: the 10 costliest functions of run 1 by inclusive time.
sqlite3 "$a" "SELECT f.name, printf('%.0f', x.inclusive) FROM flat x JOIN functions f USING (run, function)
              WHERE x.run = 1 ORDER BY x.inclusive DESC, f.name LIMIT 3" >"$t/top"
# main's inclusive is the <M n="2"> value of its PF in experiment.xml (3.99824e+06);
# the whole chain <program root> > main > MPI_Finalize > ... > <unknown procedure> carries
# that same value (ties sort by name), as the XML shows.
[ "$(tr '\n' ' ' <"$t/top")" = "<program root>|3998240 <unknown procedure>|3998240 MPIDI_CH3_Finalize|3998240 " ] ||
  { echo "FAIL top functions:"; cat "$t/top"; exit 1; }
# A trend across runs: the program total (root inclusive) of each run equals the
# sum of its top-level contexts (to the XML's %g precision: 5 digits compared).
sqlite3 "$a" "SELECT r.title, printf('%.5g', v.inclusive) FROM runs r JOIN contexts c ON c.run = r.run AND c.parent IS NULL
              JOIN context_values v ON v.run = c.run AND v.id = c.id ORDER BY r.run" >"$t/trend"
[ "$(tr '\n' ' ' <"$t/trend")" = "cpi|3.9982e+06 osu|$(sqlite3 "$a" 'SELECT printf("%.5g", sum(v.inclusive)) FROM contexts c JOIN context_values v USING (run, id) WHERE c.run = 3 AND c.depth = 1') " ] ||
  { echo "FAIL trend:"; cat "$t/trend"; exit 1; }
echo "ok archive: list, remove, SQL examples"

# The README's Python example, run as written on an archive with two runs of
# osu-allgather (the second a copy with another title in its XML header).
cd "$t"
cp -r "$CCT_DATA/classic-hatchet-osu-allgather" osu2; chmod -R u+w osu2
sed -i 's/<Header n="\([^"]*\)"/<Header n="\1 again"/' osu2/experiment.xml
"$CCTINGEST" --quiet --title first "$CCT_DATA/classic-hatchet-osu-allgather" archive.sqlite
"$CCTINGEST" --quiet --title second osu2 archive.sqlite
sed -n '/^```python$/,/^```$/p' "$CCT_SRC/README.md" | sed '1d;$d' >example.py
python3 example.py >py.out
want=$(sqlite3 archive.sqlite "SELECT inclusive FROM scope_total t JOIN function f ON f.run = t.run AND f.id = t.key
                               WHERE t.kind = 0 AND f.name = 'PMPI_Allgather' AND t.run = 1")
[ -n "$want" ] && [ "$(cat py.out | tr '\n' ' ')" = "first $want second $want " ] ||
  { echo "FAIL README python example: $(cat py.out) (want $want)"; exit 1; }
echo "ok README python example: $(cat py.out | tr '\n' ' ')"

# The README's sqlite3 example, run as written (on an archive at the path it names).
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$t/osu.sqlite"
sed -n '/^The ten costliest functions/,/^```$/p' "$CCT_SRC/README.md" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d' |
  sed "s|/tmp/osu.sqlite|$t/osu.sqlite|" >"$t/example.sh"
sh "$t/example.sh" >"$t/top10"
# independent: the same ranking from the private tables
sqlite3 "$t/osu.sqlite" "SELECT f.name || '|' || t.inclusive FROM scope_total t JOIN function f ON f.run = t.run AND f.id = t.key
                         JOIN metric m ON m.run = t.run AND m.id = t.metric AND m.stat = 'sum'
                         WHERE t.kind = 0 AND t.run = 1 ORDER BY t.inclusive DESC LIMIT 10" >"$t/want"
[ "$(wc -l <"$t/top10")" = 10 ] && cut -d'|' -f2 "$t/top10" | diff - "$(cut -d'|' -f2 "$t/want" >"$t/w2"; echo "$t/w2")" ||
  { echo "FAIL README sqlite3 example:"; cat "$t/top10"; exit 1; }
echo "ok README sqlite3 example: $(head -n 1 "$t/top10")"
