# Sourced by the ensure-*.sh scripts, which npm test runs before the tests that need a program
# from Debian (Chromium, nginx, PgBouncer): never a tool's own download.
#
# install_debian_packages <what needs them> <what to do instead> <package>...
# Installs the packages when this machine can (root with apt-get, as on CI and fresh machines);
# otherwise says what to install, and the tests that need them are left out of the run
# (tests/support/required-tools.js), unless TNS_REQUIRE_TOOLS is set (CI): then it fails. No
# package named: nothing to do.
install_debian_packages() {
  local purpose="$1" instead="$2"
  shift 2
  [ $# -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's $* for $purpose..." >&2
    # Wait for another apt run (a parallel install) rather than fail on its lock.
    apt-get -o DPkg::Lock::Timeout=300 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" >/dev/null
    return 0
  fi
  if [ -n "${TNS_REQUIRE_TOOLS:-}" ]; then
    echo "${purpose^} needs Debian's $*: install the package(s), or $instead." >&2
    return 1
  fi
  echo "${purpose^} needs Debian's $*, and will not run: install the package(s), or $instead." >&2
  return 0
}
