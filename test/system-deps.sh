#!/usr/bin/env bash
# Installs, only when missing, exactly the Debian packages the tests drive for real, without
# recommended packages (README "Tests"): openssh-client (ssh, scp, sftp, ssh-keygen),
# openssh-sftp-server (the fake workspace pod's sftp and scp), golang-go (certificates checked
# with Go's crypto/x509, as kube-apiserver parses them) and chromium (the web UI's browser
# tests), zsh (the developer command's zsh completion), wget (a laptop without curl
# installing den with `wget -qO- <base-url>/cli/install.sh | sh`) and etcd-server (the store of the real
# kube-apiserver from ../shared/kube that the tests run). No sshd: the gateway is the SSH server under test. unshare and nsenter (the workspace
# stop test) are util-linux, which every Debian system has.
set -euo pipefail
missing=()
{ command -v ssh && command -v scp && command -v sftp && command -v ssh-keygen; } >/dev/null 2>&1 || missing+=(openssh-client)
[ -x /usr/lib/openssh/sftp-server ] || missing+=(openssh-sftp-server)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v zsh >/dev/null 2>&1 || missing+=(zsh)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v wget >/dev/null 2>&1 || missing+=(wget)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "test/system-deps.sh: missing ${missing[*]}; install them (apt-get install --no-install-recommends ${missing[*]}) or run as root" >&2
    exit 1
  fi
  echo "test/system-deps.sh: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
