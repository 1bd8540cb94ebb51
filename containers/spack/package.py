# Spack recipe for merlin (docs/install.md, "Spack"). Copy this file to
# <your spack repo>/packages/merlin/package.py, then: spack install merlin [~rabbitmq] [~hdf5] [~mpi]
#
# SPDX-License-Identifier: MIT

from spack.package import *


class Merlin(CMakePackage):
    """merlin: HPC ensemble workflows from Merlin/Maestro study specs (YAML), in C++.

    Runs LLNL Merlin's study specs as task graphs, locally (merlin run --local) or through a
    Redis or RabbitMQ broker to workers in batch allocations (Slurm, Flux, LSF, PBS), and
    gathers per-sample outputs into HDF5 datasets.
    """

    homepage = "https://github.com/LLNL/merlin"
    git = "https://github.com/LLNL/merlin.git"

    license("MIT")

    # Versions come from the git tags vX.Y.Z (the build's `merlin --version` is git describe).
    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("rabbitmq", default=True, description="RabbitMQ brokers (amqp://, amqps://) via rabbitmq-c")
    variant("hdf5", default=True, description="HDF5 dataset files: merlin collect, merlin sample -o x.h5")
    variant("mpi", default=True, description="MPI: the mpi_ensemble example's program")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")

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
            # merlin-train needs libtorch, which Spack's merlin does not offer (yet).
            self.define("MERLIN_WITH_TORCH", False),
            self.define("MERLIN_BUILD_TESTS", self.run_tests),
        ]
