# Spack recipe for merlin-cpp, this C++ merlin (docs/install.md, "Spack"). Copy it into a
# package repository as packages/merlin-cpp/package.py (Spack 0.x) or packages/merlin_cpp/package.py
# (a Spack 1.x repository), then: spack install merlin-cpp [~rabbitmq] [~hdf5] [+mpi]
#
# It builds from this project's own release tarball (containers/spack/release-tarball.sh), not
# from github.com/LLNL/merlin: that is the Python Merlin, Spack's builtin py-merlin.
#
# SPDX-License-Identifier: MIT

import re

from spack.package import *

try:  # Spack 1.x: the build systems are in the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
except ImportError:  # Spack 0.x: spack.package exports CMakePackage
    pass


class MerlinCpp(CMakePackage):
    """merlin-cpp: HPC ensemble workflows from Merlin/Maestro study specs (YAML), in C++.

    Runs LLNL Merlin's study specs as task graphs, locally (merlin run --local) or through a
    Redis or RabbitMQ broker to workers in batch allocations (Slurm, Flux, LSF, PBS), and
    gathers per-sample outputs into HDF5 datasets.

    Like Spack's py-merlin (the Python Merlin) it installs bin/merlin, so the two cannot share
    a view or be loaded together. Spack documents conflicts() for this package's own spec (and,
    with ^, its dependencies), not for another package installed beside it, so the clash is
    stated here rather than written as conflicts("py-merlin").
    """

    # No homepage or git: this project has no public address yet.

    license("MIT")

    # The two lines marked @release-tarball are written by `release-tarball.sh --recipe OUT.py`
    # for the tarball it makes (a `git archive` of one commit; its sha256 changes with every
    # commit). Here they are placeholders: a site puts the tarball where its Spack can fetch it
    # (a file:// url, or a source mirror: docs/install.md), and the all-zero sha256 matches no
    # file, so Spack refuses this copy until it is rendered or the line is replaced by what
    # `spack checksum merlin-cpp <version>` prints.
    url = "file:///path/to/merlin-cpp-0.1.0.tar.gz"  # @release-tarball
    version("0.1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")  # @release-tarball

    variant("rabbitmq", default=True, description="RabbitMQ brokers (amqp://, amqps://) via rabbitmq-c")
    variant("hdf5", default=True, description="HDF5 dataset files: merlin collect, merlin sample -o x.h5")
    # Off by default (the CMake option is on): without merlin-train, MPI only builds the
    # mpi_ensemble example, and it would pull a whole MPI stack into the build.
    variant("mpi", default=False, description="MPI: the mpi_ensemble example's program")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("help2man", type="build")  # the man pages; the build stops without it (MERLIN_MAN_PAGES)

    depends_on("yaml-cpp@0.7:")
    depends_on("fmt@9:")
    depends_on("spdlog@1.10: +fmt_external")
    depends_on("hiredis")
    depends_on("openssl")  # rediss:// (adapters/broker/redis/tls_stream.cc)
    depends_on("cpp-httplib")  # merlin monitor --web (Debian's is a shared library)
    # Header-only: needed to compile, not at run time.
    depends_on("cli11@2:", type="build")
    depends_on("nlohmann-json@3.10:", type="build")
    depends_on("boost@1.71:", type="build")  # boost/random/detail/sobol_table.hpp (merlin sample --method sobol)

    depends_on("rabbitmq-c", when="+rabbitmq")
    depends_on("hdf5", when="+hdf5")
    # merlin collect encodes whole chunks itself (gzip, lz4); libdeflate, when found, is faster.
    depends_on("zlib", when="+hdf5")
    depends_on("lz4", when="+hdf5")
    depends_on("libdeflate", when="+hdf5")
    depends_on("mpi", when="+mpi")

    depends_on("googletest", type="test")

    def cmake_args(self):
        return [
            self.define_from_variant("MERLIN_WITH_RABBITMQ", "rabbitmq"),
            self.define_from_variant("MERLIN_WITH_HDF5", "hdf5"),
            self.define_from_variant("MERLIN_WITH_MPI", "mpi"),
            # merlin-train needs libtorch, which this recipe does not offer (yet).
            self.define("MERLIN_WITH_TORCH", False),
            self.define("MERLIN_BUILD_TESTS", self.run_tests),
            # The tarball has no .git: say which commit it is, as `git describe` would, so
            # `merlin --version` names it (cmake/merlin_version.cmake).
            self.define("MERLIN_GIT_DESCRIBE", self._git_describe()),
        ]

    def _git_describe(self):
        """What `git describe` said of the commit the version's tarball was made from."""
        version = str(self.spec.version)
        untagged = re.fullmatch(r"[0-9.]+-g([0-9a-f]+)", version)  # PROJECT_VERSION-gHASH
        return untagged.group(1) if untagged else "v" + version  # X.Y.Z, X.Y.Z-N-gHASH
