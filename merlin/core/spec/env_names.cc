#include "merlin/core/spec/env_names.h"

namespace merlin::spec {
namespace {

// Names reserved for one reason: space-separated, a trailing '*' makes a family (a prefix).
struct ReservedGroup {
  std::string_view meaning;
  std::string_view names;
};

// A block list, kept as this one table (docs/sample-safety.md lists it). What it covers: names
// that decide which code runs (search paths, startup files, preloads, interpreter options),
// the shell's own variables, the session's identity, and what launchers and merlin set.
// Case-sensitive, as the environment is. A family is only listed where its members are read in
// bulk (LD_*, LC_*, SLURM_*...), so ordinary labels such as `X0`, `PRESSURE`, `N_MODES` or
// `INPUT_PATH` stay exported.
constexpr ReservedGroup kReserved[] = {
    {"read by the shell",
     "ENV BASH* PATH CDPATH HOME IFS SHELLOPTS PS0 PS1 PS2 PS3 PS4 PROMPT_COMMAND PROMPT_DIRTRIM "
     "GLOBIGNORE EXECIGNORE FIGNORE POSIXLY_CORRECT HIST* histchars COMP_* READLINE_* INPUTRC "
     "HOSTFILE MAIL MAILPATH MAILCHECK TIMEFORMAT TMOUT OPTIND OPTARG OPTERR PWD OLDPWD SHLVL "
     "SHELL TERM COLUMNS LINES FUNCNEST FUNCNAME CHILD_MAX RANDOM SRANDOM SECONDS EPOCHREALTIME "
     "EPOCHSECONDS LINENO UID EUID PPID GROUPS HOSTNAME HOSTTYPE MACHTYPE OSTYPE DIRSTACK "
     "PIPESTATUS REPLY COPROC EMACS INSIDE_EMACS auto_resume _ FPATH ZDOTDIR ZSH* KSH*"},
    {"set by the login session",
     "USER LOGNAME TMPDIR TMP TEMP DISPLAY XAUTHORITY XDG_* SSH_* SUDO_* KRB5* DBUS_*"},
    {"read by the dynamic loader", "LD_* DYLD_*"},
    // glibc's list of variables unsafe for setuid programs, and the locale.
    {"read by the C library",
     "MALLOC_* GLIBC_TUNABLES GCONV_PATH LOCPATH NLSPATH LANG LANGUAGE LC_* TZ TZDIR HOSTALIASES "
     "LOCALDOMAIN RES_OPTIONS RESOLV_* NIS_PATH GETCONF_DIR"},
    // Interpreters' search paths and startup options; programs that run a command they find
    // in a variable.
    {"read by interpreters and common tools",
     "PYTHON* PERL* RUBY* GEM_HOME GEM_PATH NODE_* JAVA_TOOL_OPTIONS _JAVA_OPTIONS "
     "JDK_JAVA_OPTIONS CLASSPATH LUA_* TCLLIBPATH JULIA_* R_LIBS R_LIBS_USER R_PROFILE "
     "R_PROFILE_USER R_ENVIRON R_ENVIRON_USER GIT_* EDITOR VISUAL PAGER BROWSER MANPATH INFOPATH"},
    {"read by compilers and build tools",
     "CC CXX CPP FC F77 CFLAGS CXXFLAGS CPPFLAGS FFLAGS FCFLAGS LDFLAGS LDLIBS MAKEFLAGS MFLAGS "
     "MAKEFILES MAKELEVEL CMAKE_* PKG_CONFIG* CPATH LIBRARY_PATH C_INCLUDE_PATH "
     "CPLUS_INCLUDE_PATH"},
    {"read by programs that reach the network",
     "http_proxy https_proxy ftp_proxy no_proxy all_proxy HTTP_PROXY HTTPS_PROXY FTP_PROXY "
     "NO_PROXY ALL_PROXY SSL_CERT_FILE SSL_CERT_DIR OPENSSL_CONF CURL_CA_BUNDLE "
     "REQUESTS_CA_BUNDLE"},
    // `module load` runs code found through MODULEPATH.
    {"read by the environment modules system",
     "MODULEPATH MODULESHOME LMOD_* LOADEDMODULES _LMFILES_"},
    // What srun/mpirun/flux set for the step, and their runtimes' tuning knobs.
    {"set or read by MPI, OpenMP, GPU runtimes and batch systems",
     "SLURM_* SBATCH_* SRUN_* SALLOC_* FLUX_* LSB_* LSF_* PBS_* OMPI_* PMIX_* PMI_* PRTE_* "
     "HYDRA_* I_MPI_* MPICH_* MPIR_* MV2_* UCX_* OMP_* KMP_* GOMP_* CUDA_* NCCL_* "
     "ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES GPU_DEVICE_ORDINAL"},
    // merlin's own task variables (MERLIN_SAMPLE_ID, MERLIN_NODES, WORKSPACE...).
    {"set by merlin for every task", "MERLIN_* WORKSPACE"},
};

bool matches(std::string_view pattern, std::string_view name) {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    return name.substr(0, pattern.size()) == pattern;
  }
  return name == pattern;
}

}  // namespace

bool is_shell_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

std::optional<EnvNameConflict> env_name_conflict(std::string_view name) {
  for (const auto& group : kReserved) {
    std::string_view rest = group.names;
    while (!rest.empty()) {
      const std::size_t space = rest.find(' ');
      const std::string_view pattern = rest.substr(0, space);
      if (matches(pattern, name))
        return EnvNameConflict{std::string(pattern), std::string(group.meaning)};
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
  }
  return std::nullopt;
}

bool is_exported_label(std::string_view label) {
  return is_shell_identifier(label) && !env_name_conflict(label);
}

std::string describe_env_conflict(std::string_view name, const EnvNameConflict& c) {
  std::string out = "would set the step's environment variable " + std::string(name);
  if (c.pattern == name) return out + ", which is " + c.meaning;
  return out + "; " + c.pattern + " variables are " + c.meaning;
}

}  // namespace merlin::spec
