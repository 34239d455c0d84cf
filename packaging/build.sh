#!/usr/bin/env bash
# Build tokviz as a standalone Linux bundle with PyInstaller, smoke-test it, and pack it with its
# desktop entry, AppStream metadata and icons:
#
#   build/dist/tokviz/tokviz                      the app (a folder bundle; run it in place)
#   build/tokviz-VERSION-linux-ARCH.tar.gz        bin/, lib/tokviz/, share/{applications,metainfo,icons}
#
# TOKVIZ_BUILD_DIR=DIR puts everything in DIR instead of build/ (tests/test_packaging.py uses a temporary one).
# TOKVIZ_GZIP_LEVEL=1..9 sets the archive's compression (default 6, gzip's own): 1 packs in
# a third of the time into an archive a tenth larger (the tests, which only open it, use 1).
#
# PYTHON=INTERPRETER names the Python that has the app's dependencies and PyInstaller (default:
# python3 on PATH), e.g. a venv's:
#   python3 -m venv .venv && .venv/bin/pip install . pyinstaller && PYTHON=.venv/bin/python packaging/build.sh
# Install the archive for one user with:
#   tar -xzf build/tokviz-*.tar.gz -C ~/.local --strip-components=1
set -euo pipefail
python=${PYTHON:-python3}
# A relative interpreter path names a file under the folder the script was started from.
if [[ $python == */* && $python != /* ]]; then python=$PWD/$python; fi
cd "$(dirname "$0")/.."

if ! "$python" -m PyInstaller --version >/dev/null 2>&1; then
    echo "build.sh: PyInstaller is not installed for $python ($python -m pip install pyinstaller)" >&2
    exit 2
fi
version=$("$python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
arch=$(uname -m)
out=${TOKVIZ_BUILD_DIR:-build}
gzip_level=${TOKVIZ_GZIP_LEVEL:-6}
if [[ ! $gzip_level =~ ^[1-9]$ ]]; then
    echo "build.sh: TOKVIZ_GZIP_LEVEL must be a digit from 1 to 9, not '$gzip_level'" >&2
    exit 2
fi
start=$(date +%s)

"$python" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$out/dist" --workpath "$out/pyinstaller" packaging/tokviz.spec
app=$out/dist/tokviz/tokviz
echo "build.sh: built $app in $(($(date +%s) - start)) s ($(du -sh "$out/dist/tokviz" | cut -f1))"

# Smoke tests: the CLI with the bundled vocabularies, then the GUI (offscreen, quits once its views
# are painted), with a throw-away profile.
"$app" info gpt2 >/dev/null
# Which merge loop the bundle trains with (the compiled one, where the build had a C compiler).
echo "build.sh: $("$app" --version)"
test "$("$app" encode --tokenizer gpt2 --text 'hello world')" = "31373 995"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Corpora as they ship: the bundle reads a Parquet file and zstd-compressed JSON Lines (pyarrow, zstandard).
"$python" - "$profile" <<'EOF'
import json, sys
import pyarrow as pa, pyarrow.parquet as pq, zstandard
docs = ["a first record", "and a second one"]
pq.write_table(pa.table({"id": [1, 2], "text": docs}), f"{sys.argv[1]}/docs.parquet")
lines = "".join(json.dumps({"text": d}) + "\n" for d in docs).encode()
open(f"{sys.argv[1]}/docs.jsonl.zst", "wb").write(zstandard.ZstdCompressor().compress(lines))
EOF
"$app" eval "$profile/docs.parquet" "$profile/docs.jsonl.zst" --tokenizer gpt2 -q >/dev/null
mkdir -m 700 "$profile/runtime"
env QT_QPA_PLATFORM=offscreen HOME="$profile" XDG_CONFIG_HOME="$profile/config" XDG_DATA_HOME="$profile/data" \
    XDG_RUNTIME_DIR="$profile/runtime" TOKVIZ_READY_FILE="$profile/ready.json" TOKVIZ_QUIT_WHEN_READY=1 \
    timeout 120 "$app"
"$python" - "$profile/ready.json" <<'EOF'
import json, sys
status = json.load(open(sys.argv[1]))
assert status["tokens_painted"] and all(v["tokens"] > 0 for v in status["views"]), status
print("build.sh: bundle smoke test OK:", ", ".join(f"{v['label']} {v['tokens']} tokens" for v in status["views"]))
EOF

# The archive: an FHS-like tree that unpacks into ~/.local or /usr/local.
stage=$out/stage/tokviz-$version
rm -rf "$out/stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/share/applications" "$stage/share/metainfo" "$stage/share/icons"
cp -a "$out/dist/tokviz" "$stage/lib/tokviz"
ln -s ../lib/tokviz/tokviz "$stage/bin/tokviz"
cp packaging/io.github.tokviz.Tokviz.desktop "$stage/share/applications/"
cp packaging/io.github.tokviz.Tokviz.metainfo.xml "$stage/share/metainfo/"
cp -a packaging/icons/hicolor "$stage/share/icons/"
archive=$out/tokviz-$version-linux-$arch.tar.gz
tar -C "$out/stage" -cf - "tokviz-$version" | gzip "-$gzip_level" >"$archive"
echo "build.sh: wrote $archive ($(du -h "$archive" | cut -f1)) in $(($(date +%s) - start)) s in total"
