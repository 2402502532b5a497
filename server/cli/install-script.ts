// <base-url>/cli/install.sh: the POSIX sh a person pipes from curl to install `den` from this
// Den. It checks Node first (one line naming the Node it needs and where to get it, nothing
// installed), downloads <base-url>/cli/den.tgz into a temporary folder, checks it against the
// SHA-256 written here, then swaps it into ~/.local/share/den whole (an earlier den there is
// upgraded in place) and writes the `den` launcher into ~/.local/bin. DEN_INSTALL_DIR and
// DEN_BIN_DIR choose other folders. Every failure is one line saying what to do, exit 1.
import { LAPTOP_NODE } from '../../process/version.js';

/** The launcher's second line: how the script knows a `den` in the bin folder is its own to replace. */
export const LAUNCHER_MARK = "# den launcher, written by Den's install.sh";

/** Single-quoted for sh: the value exactly, whatever it holds. */
function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function installScript(opts: { baseUrl: string; version: string; sha256: string }): string {
  const base = opts.baseUrl.replace(/\/+$/, '');
  // In comments the address is only read: anything but printable ASCII (a line break) cannot end them.
  const shown = base.replace(/[^\x21-\x7e]/g, '?');
  return `#!/bin/sh
# Installs den ${opts.version}, the command line of the Den at ${shown}:
#   curl -fsSL ${shown}/cli/install.sh | sh
# It needs Node.js ${LAPTOP_NODE} or newer, and puts den in ~/.local/share/den with a launcher in
# ~/.local/bin (DEN_INSTALL_DIR and DEN_BIN_DIR choose other folders). Running it again upgrades.
set -eu

den_url=${shQuote(base)}
den_version=${shQuote(opts.version)}
den_sha256=${shQuote(opts.sha256)}
node_needed=${LAPTOP_NODE}
install_dir="\${DEN_INSTALL_DIR:-\${XDG_DATA_HOME:-$HOME/.local/share}/den}"
bin_dir="\${DEN_BIN_DIR:-$HOME/.local/bin}"

fail() {
  echo "den install: $*" >&2
  exit 1
}

node_path=$(command -v node 2>/dev/null) || fail "den needs Node.js $node_needed or newer and there is no node on PATH: install it from https://nodejs.org/ (or your package manager), then run this again"
node_seen=$(node --version 2>/dev/null) || node_seen=unknown
node_major=$(echo "$node_seen" | sed -n 's/^v\\([0-9][0-9]*\\)\\..*/\\1/p')
if [ -z "$node_major" ] || [ "$node_major" -lt "$node_needed" ]; then
  fail "den needs Node.js $node_needed or newer, but $node_path is $node_seen: install a current Node.js from https://nodejs.org/ (or your package manager), then run this again"
fi

launcher="$bin_dir/den"
if [ -e "$launcher" ] && ! grep -qF ${shQuote(LAUNCHER_MARK)} "$launcher" 2>/dev/null; then
  fail "$launcher exists and is not a den this script installed: move it away (or set DEN_BIN_DIR), then run this again"
fi

work=$(mktemp -d "\${TMPDIR:-/tmp}/den-install.XXXXXX") || fail "cannot make a temporary folder"
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

echo "Downloading den $den_version from $den_url/cli/den.tgz" >&2
if command -v curl >/dev/null 2>&1; then
  curl -fsSL -o "$work/den.tgz" "$den_url/cli/den.tgz" || fail "could not download $den_url/cli/den.tgz (curl failed, see above): check the address and your network, then run this again"
elif command -v wget >/dev/null 2>&1; then
  wget -q -O "$work/den.tgz" "$den_url/cli/den.tgz" || fail "could not download $den_url/cli/den.tgz (wget failed): check the address and your network, then run this again"
else
  fail "neither curl nor wget is installed: install one of them, or run: npm install -g $den_url/cli/den.tgz"
fi

sum=""
if command -v sha256sum >/dev/null 2>&1; then
  sum=$(sha256sum "$work/den.tgz" | cut -d' ' -f1)
elif command -v shasum >/dev/null 2>&1; then
  sum=$(shasum -a 256 "$work/den.tgz" | cut -d' ' -f1)
fi
if [ -n "$sum" ] && [ "$sum" != "$den_sha256" ]; then
  fail "the download from $den_url/cli/den.tgz is not the den this script names (the server may have been upgraded meanwhile): run this again"
fi

mkdir -p "$work/unpacked"
tar -xzf "$work/den.tgz" -C "$work/unpacked" || fail "$den_url/cli/den.tgz is not a den package (tar could not unpack it)"
[ -f "$work/unpacked/package/den.js" ] || fail "$den_url/cli/den.tgz holds no den.js: is $den_url a Den?"

previous=""
if [ -f "$install_dir/package.json" ]; then
  previous=$(sed -n 's/^ *"version": *"\\([^"]*\\)".*/\\1/p' "$install_dir/package.json" | head -n 1)
fi
mkdir -p "$(dirname "$install_dir")" "$bin_dir" || fail "cannot make $(dirname "$install_dir") or $bin_dir"
staged="$install_dir.new.$$"
rm -rf "$staged"
mv "$work/unpacked/package" "$staged" 2>/dev/null || cp -R "$work/unpacked/package" "$staged" || fail "cannot write $staged"
if [ -e "$install_dir" ]; then
  rm -rf "$install_dir.old.$$"
  mv "$install_dir" "$install_dir.old.$$" || fail "cannot replace $install_dir"
fi
mv "$staged" "$install_dir" || fail "cannot write $install_dir"
rm -rf "$install_dir.old.$$"

cat > "$launcher.new.$$" <<LAUNCHER || fail "cannot write $launcher"
#!/bin/sh
${LAUNCHER_MARK}
exec node "$install_dir/den.js" "\\$@"
LAUNCHER
chmod 755 "$launcher.new.$$"
mv "$launcher.new.$$" "$launcher" || fail "cannot write $launcher"

if [ -n "$previous" ] && [ "$previous" != "$den_version" ]; then
  echo "den upgraded from $previous to $den_version: $launcher" >&2
elif [ -n "$previous" ]; then
  echo "den $den_version reinstalled: $launcher" >&2
else
  echo "den $den_version installed: $launcher" >&2
fi
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "$bin_dir is not on your PATH: add it, e.g. put  export PATH=\\"$bin_dir:\\$PATH\\"  in ~/.profile (or your shell's rc file), then open a new terminal" >&2 ;;
esac
echo "Sign in with: den login $den_url" >&2
`;
}
