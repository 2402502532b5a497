#!/usr/bin/env bash
# Installs the Debian packages the tests drive for real (the OpenSSH client and sftp-server,
# Chromium for the web UI) when missing.
set -euo pipefail
missing=()
command -v ssh >/dev/null 2>&1 && command -v sftp >/dev/null 2>&1 && command -v scp >/dev/null 2>&1 || missing+=(openssh-client)
command -v ssh-keygen >/dev/null 2>&1 || missing+=(openssh-client)
# The gateway tests' fake workspace pod runs OpenSSH's sftp-server for sftp and scp.
[ -x /usr/lib/openssh/sftp-server ] || missing+=(openssh-sftp-server)
# The web UI's browser tests drive Debian's Chromium through playwright-core.
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "test/system-deps.sh: missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
