#!/bin/bash
# What ingest reads and writes (issue 13 items 1, 3, 7, 10, 16): source copies
# only from regular files inside DB_DIR/src (no '..', no symlink leaving the
# tree, both formats); an OUT that is not a regular file is refused; non-finite
# values are refused naming file and line; FIFOs and devices as inputs give an
# error instead of a hang; each error is one line naming the file.
set -euo pipefail
t=$(mktemp -d); trap 'chmod -R u+rwx "$t" 2>/dev/null; rm -rf "$t"' EXIT
chmod 755 "$t"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
as_user=; [ "$(id -u)" != 0 ] || as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups" # root ignores modes
# stored ARCHIVE: the paths of the files whose text the archive holds
stored() { sqlite3 "$1" "SELECT path FROM file WHERE size IS NOT NULL ORDER BY path" | tr '\n' ' '; }
# expect_error NAME PATTERN CMD...: CMD exits non-zero within 20 s with one 'error:' line matching PATTERN
expect_error() {
  name=$1 pattern=$2; shift 2
  if timeout 20 "$@" >/dev/null 2>"$t/err"; then fail "$name: exit 0"; return; fi
  [ "$(grep -c . "$t/err")" = 1 ] && grep -q "^cct[a-z]*: error: $pattern" "$t/err" ||
    { fail "$name: stderr was:"; cat "$t/err"; return; }
  echo "ok $name: $(cat "$t/err")"
}
echo "the secret" >"$t/secret.txt"

# ---- item 1, classic: FileTable names that lead out of DB_DIR/src
cp -r "$CCT_DATA/handmade-src" "$t/c"; chmod -R u+w "$t/c"
sed -i -e 's|n="/tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpi/init/init.c"|n="./src/../../secret.txt"|' \
       -e 's|n="/tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpi/init/initthread.c"|n="./src/link.c"|' \
       -e 's|n="/tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpid/ch3/src/mpid_init.c"|n="./src/alias.c"|' \
       -e 's|n="/tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpid/ch3/channels/psm/src/mpidi_calls.c"|n="./src/fifo.c"|' \
       -e 's|n="/tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpid/ch3/channels/psm/src/psm_entry.c"|n="./src/sub/../cpi.c"|' \
       -e 's|n="/tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpi/init/finalize.c"|n="./src/up.c"|' \
       "$t/c/experiment.xml"
[ "$(grep -c 'n="./src/' "$t/c/experiment.xml")" = 7 ] || fail "classic fixture: sed did not apply"
ln -s "$t/secret.txt" "$t/c/src/link.c"  # a symlink leaving the tree
ln -s cpi.c "$t/c/src/alias.c"           # a symlink inside the tree: fine
mkfifo "$t/c/src/fifo.c"                 # not a regular file (and must not hang)
mkdir "$t/c/src/sub"
ln -s ../.. "$t/c/src/updir"; ln -s updir/secret.txt "$t/c/src/up.c" # leaves through a directory link
timeout 20 "$CCTINGEST" --quiet "$t/c" "$t/c.sqlite" || fail "classic ingest with hostile file names"
got=$(stored "$t/c.sqlite")
[ "$got" = "./src/alias.c ./src/cpi.c " ] || fail "classic sources: stored '$got', want './src/alias.c ./src/cpi.c '"
sqlite3 "$t/c.sqlite" "SELECT count(*) FROM file WHERE size = $(wc -c <"$t/secret.txt")" | grep -qx 0 ||
  fail "classic sources: a file of the secret's size was stored"
echo "ok classic sources: only '$got'"
# DB_DIR/src itself a symlink out of the database: nothing is copied
mkdir "$t/c2"; cp "$t/c/experiment.xml" "$t/c2/"; mkdir "$t/elsewhere"; cp "$t/c/src/cpi.c" "$t/elsewhere/"
ln -s "$t/elsewhere" "$t/c2/src"
"$CCTINGEST" --quiet "$t/c2" "$t/c2.sqlite" || fail "classic ingest with src a symlink"
got=$(stored "$t/c2.sqlite"); [ -z "$got" ] || fail "classic, src a symlink leaving the database: stored '$got'"
echo "ok classic, DB_DIR/src a symlink out of the database: nothing stored"

# ---- item 1, v4: the file record 'src/tmp/foo.c' (copied flag set) of a real meta.db
cp -r "$CCT_DATA/v4-hpctoolkit-small_v4.0" "$t/v"; chmod -R u+w "$t/v"
mkdir -p "$t/v/src/tmp"; echo "int foo;" >"$t/v/src/tmp/foo.c"
"$CCTINGEST" --quiet "$t/v" "$t/v1.sqlite"
[ "$(stored "$t/v1.sqlite")" = "src/tmp/foo.c " ] || fail "v4 regular copy not stored: '$(stored "$t/v1.sqlite")'"
rm "$t/v/src/tmp/foo.c"; ln -s "$t/secret.txt" "$t/v/src/tmp/foo.c"
"$CCTINGEST" --quiet "$t/v" "$t/v2.sqlite"
[ -z "$(stored "$t/v2.sqlite")" ] || fail "v4: a symlink out of the tree was stored"
rm "$t/v/src/tmp/foo.c"; rmdir "$t/v/src/tmp"; ln -s "$t" "$t/v/src/tmp"; cp "$t/secret.txt" "$t/foo.c"
"$CCTINGEST" --quiet "$t/v" "$t/v3.sqlite"
[ -z "$(stored "$t/v3.sqlite")" ] || fail "v4: a file behind a directory symlink out of the tree was stored"
echo "ok v4 sources: a regular copy is stored, symlinks out of DB_DIR/src are not"

# ---- item 3: an OUT that exists and is not a regular file is refused and left alone
mkfifo "$t/out.fifo"
expect_error "OUT a FIFO" "'$t/out.fifo' exists and is not a regular file" "$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/out.fifo"
[ -p "$t/out.fifo" ] || fail "OUT a FIFO: replaced"
: >"$t/empty"; ln -s "$t/empty" "$t/out.link"
expect_error "OUT a symlink to an empty file" "'$t/out.link' exists and is not a regular file" "$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/out.link"
[ -L "$t/out.link" ] && [ ! -s "$t/empty" ] || fail "OUT a symlink: replaced or written through"
if [ "$(id -u)" = 0 ] && mknod "$t/null" c 1 3 2>/dev/null; then
  expect_error "OUT a character device" "'$t/null' exists and is not a regular file" "$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/null"
  [ -c "$t/null" ] || fail "OUT a device: replaced"
fi
ls "$t" | grep -q '\.tmp[0-9]' && fail "OUT refused: a temporary file was left"

# ---- item 7: inf and nan values are refused, naming the file and the line
for v in inf nan -inf; do
  rm -rf "$t/x"; cp -r "$CCT_DATA/classic-hatchet-cpi" "$t/x"; chmod -R u+w "$t/x"
  line=$(grep -n '<M n="2" v=' "$t/x/experiment.xml" | sed -n 5p | cut -d: -f1)
  sed -i "${line}s/<M n=\"2\" v=\"[^\"]*\"/<M n=\"2\" v=\"$v\"/" "$t/x/experiment.xml"
  expect_error "value $v" "'$t/x/experiment.xml' line $line: .*not a finite number" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
  [ ! -e "$t/x.sqlite" ] || fail "value $v: archive written"
done
# in a metric-db file: the first value of node 2 becomes +inf (0x7ff0000000000000)
rm -rf "$t/x"; cp -r "$CCT_DATA/classic-hatchet-cpi" "$t/x"; chmod -R u+w "$t/x"
m=$(ls "$t/x"/*.metric-db | head -n 1); ncol=$(od -An -tu1 -j28 -N4 "$m" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
printf '\177\360\000\000\000\000\000\000' | dd of="$m" bs=1 seek=$((32 + 8 * ncol)) conv=notrunc 2>/dev/null
expect_error "metric-db inf" "'$m': value of node 2, column 0 is not a finite number" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"

# ---- item 10: FIFOs and devices as inputs: an error, never a hang or an endless read
rm -rf "$t/x"; mkdir "$t/x"; ln -s /dev/zero "$t/x/experiment.xml"
expect_error "experiment.xml is /dev/zero" "'$t/x/experiment.xml' is not a regular file" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
rm -rf "$t/x"; mkdir "$t/x"; mkfifo "$t/x/experiment.xml"
expect_error "experiment.xml is a FIFO" "'$t/x/experiment.xml' is not a regular file" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
rm -rf "$t/x"; mkdir "$t/x"; mkfifo "$t/x/meta.db"
expect_error "meta.db is a FIFO" "'$t/x/meta.db' is not a regular file" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
rm -rf "$t/x"; cp -r "$CCT_DATA/v4-hpctoolkit-small_v4.0" "$t/x"; chmod -R u+w "$t/x"; rm "$t/x/profile.db"; ln -s /dev/zero "$t/x/profile.db"
expect_error "profile.db is /dev/zero" "'$t/x/profile.db' is not a regular file" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
rm -rf "$t/x"; cp -r "$CCT_DATA/classic-hatchet-cpi" "$t/x"; chmod -R u+w "$t/x"; m=$(ls "$t/x"/*.metric-db | head -n 1); rm "$m"; mkfifo "$m"
expect_error "a metric-db is a FIFO" "'$m' is not a regular file" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
rm -rf "$t/x"; mkdir -p "$t/x/meta.db"
expect_error "meta.db is a directory" "'$t/x/meta.db' is not a regular file" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"

# ---- item 16: messages name the file at fault
rm -rf "$t/x"; cp -r "$CCT_DATA/v4-hpctoolkit-small_v4.0" "$t/x"; chmod -R a+rX "$t/x"; chmod 000 "$t/x/profile.db"
mkdir "$t/o"; chmod 777 "$t/o"
expect_error "unreadable profile.db" "cannot open '$t/x/profile.db': Permission denied" $as_user "$CCTINGEST" --quiet "$t/x" "$t/o/x.sqlite"
chmod 644 "$t/x/profile.db"; chmod 000 "$t/x/meta.db"
expect_error "unreadable meta.db" "cannot open '$t/x/meta.db': Permission denied" $as_user "$CCTINGEST" --quiet "$t/x" "$t/o/x.sqlite"
rm -rf "$t/x"; mkdir "$t/x"; ln -s "$t/nowhere" "$t/x/meta.db"
expect_error "dangling meta.db" "cannot open '$t/x/meta.db': No such file or directory" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
rm -rf "$t/x"; cp -r "$CCT_DATA/classic-hatchet-cpi" "$t/x"; chmod -R u+w "$t/x"
# bad UTF-8 (0xC9 then 'P') in a procedure name: libxml2 says it in two lines
off=$(grep -b -o 'n="MPIDI_CH3_Finalize"' "$t/x/experiment.xml" | head -n 1 | cut -d: -f1)
printf '\311' | dd of="$t/x/experiment.xml" bs=1 seek=$((off + 7)) conv=notrunc 2>/dev/null
expect_error "malformed XML in one line" "'$t/x/experiment.xml' line [0-9]*: malformed XML: .*Bytes: 0xC9" "$CCTINGEST" --quiet "$t/x" "$t/x.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/r.sqlite"
if "$CCTINGEST" --remove 0 "$t/r.sqlite" 2>"$t/err"; then fail "--remove 0: exit 0"; fi
head -n 1 "$t/err" | grep -qx "cctingest: error: --remove needs a run number (1 or more, see --list), not '0'" ||
  { fail "--remove 0:"; cat "$t/err"; }
echo "ok --remove 0: $(head -n 1 "$t/err")"

[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
