// The environment under one lock (pairhist/environment.hpp): variables added while other threads
// read it, as a run's engine start does while its decoding threads run; the user's settings read
// from it (pairhist/settings.hpp).
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "pairhist/environment.hpp"
#include "pairhist/settings.hpp"

using namespace pairhist;

TEST_CASE("the environment grows while threads read it: every value read is whole") {
  env_set("PAIRHIST_TEST_STEADY", "steady");
  std::atomic<bool> done{false};
  std::atomic<int64_t> reads{0}, wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      while (!done) {
        const char* v = env_get("PAIRHIST_TEST_STEADY");
        if (!v || std::strcmp(v, "steady") != 0) ++wrong;
        ++reads;
      }
    });
  // Each new name makes glibc grow (and move) its array of variables.
  constexpr int kAdded = 3000;
  for (int i = 0; i < kAdded; ++i)
    env_set(("PAIRHIST_TEST_GROWN_" + std::to_string(i)).c_str(), "x");
  for (int i = 0; i < kAdded; ++i) env_unset(("PAIRHIST_TEST_GROWN_" + std::to_string(i)).c_str());
  done = true;
  for (std::thread& t : readers) t.join();
  CHECK(reads > 0);
  CHECK(wrong == 0);
  env_unset("PAIRHIST_TEST_STEADY");
}

TEST_CASE("ScopedEnv: the value for the scope, the previous one (or none) after") {
  env_unset("PAIRHIST_TEST_SCOPED");
  {
    ScopedEnv on("PAIRHIST_TEST_SCOPED", "1");
    REQUIRE(env_get("PAIRHIST_TEST_SCOPED") != nullptr);
    CHECK(std::string(env_get("PAIRHIST_TEST_SCOPED")) == "1");
    {
      ScopedEnv inner("PAIRHIST_TEST_SCOPED", "2");
      CHECK(std::string(env_get("PAIRHIST_TEST_SCOPED")) == "2");
    }
    CHECK(std::string(env_get("PAIRHIST_TEST_SCOPED")) == "1");
  }
  CHECK(env_get("PAIRHIST_TEST_SCOPED") == nullptr);
  env_set("PAIRHIST_TEST_SCOPED", "kept", false);
  env_set("PAIRHIST_TEST_SCOPED", "ignored", false);  // no replace: the value stays
  CHECK(std::string(env_get("PAIRHIST_TEST_SCOPED")) == "kept");
  env_unset("PAIRHIST_TEST_SCOPED");
}

TEST_CASE("env_flag: the fallback when unset, else whether the value is a non-zero number") {
  env_unset("PAIRHIST_TEST_FLAG");
  CHECK(env_flag("PAIRHIST_TEST_FLAG", true));
  CHECK_FALSE(env_flag("PAIRHIST_TEST_FLAG", false));
  ScopedEnv off("PAIRHIST_TEST_FLAG", "0");
  CHECK_FALSE(env_flag("PAIRHIST_TEST_FLAG", true));
  ScopedEnv on("PAIRHIST_TEST_FLAG", "1");
  CHECK(env_flag("PAIRHIST_TEST_FLAG", false));
}

TEST_CASE("the user's settings: defaults, values, and one warning naming a refused variable") {
  const char* names[] = {
      "PAIRHIST_DATA_DIR",      "PAIRHIST_GNUPLOT", "PAIRHIST_HDF5_PROBE_SECONDS",
      "PAIRHIST_PIN_BUDGET_MB", "PAIRHIST_MPI",     "PAIRHIST_MPI_TIMEOUT",
      "PAIRHIST_CPU_KERNELS"};
  std::vector<std::string> saved;
  for (const char* name : names) {
    const char* v = env_get(name);
    saved.push_back(v ? std::string(v) : std::string("\x01"));
    env_unset(name);
  }
  const Settings defaults = Settings::from_environment();
  CHECK(defaults.data_dir.empty());
  CHECK(defaults.gnuplot == "gnuplot");
  CHECK(defaults.hdf5_probe_seconds == 600);
  CHECK(defaults.pin_budget_bytes == Settings::kUnlimited);
  CHECK(defaults.mpi_launched == -1);
  CHECK(!defaults.force_avx2_kernels);
  CHECK(defaults.mpi_timeout_seconds == 60);
  CHECK(defaults.warnings.empty());
  {
    ScopedEnv data("PAIRHIST_DATA_DIR", "/data"), gnuplot("PAIRHIST_GNUPLOT", "/opt/gnuplot"),
        probe("PAIRHIST_HDF5_PROBE_SECONDS", "0"), pin("PAIRHIST_PIN_BUDGET_MB", "16"),
        mpi("PAIRHIST_MPI", "0"), timeout("PAIRHIST_MPI_TIMEOUT", "2.5"),
        kernels("PAIRHIST_CPU_KERNELS", "avx2");
    const Settings s = Settings::from_environment();
    CHECK(s.data_dir == "/data");
    CHECK(s.gnuplot == "/opt/gnuplot");
    CHECK(s.hdf5_probe_seconds == 0);
    CHECK(s.pin_budget_bytes == (uint64_t{16} << 20));
    CHECK(s.mpi_launched == 0);
    CHECK(s.mpi_timeout_seconds == 2.5);
    CHECK(s.force_avx2_kernels);
    CHECK(s.warnings.empty());
  }
  {
    ScopedEnv probe("PAIRHIST_HDF5_PROBE_SECONDS", "10s"), pin("PAIRHIST_PIN_BUDGET_MB", "-1"),
        timeout("PAIRHIST_MPI_TIMEOUT", "0"), mpi("PAIRHIST_MPI", "yes"),
        kernels("PAIRHIST_CPU_KERNELS", "avx512");
    const Settings s = Settings::from_environment();
    CHECK(s.hdf5_probe_seconds == 600);
    CHECK(s.pin_budget_bytes == Settings::kUnlimited);
    CHECK(s.mpi_timeout_seconds == 60);
    CHECK(s.mpi_launched == 1);
    CHECK(!s.force_avx2_kernels);
    REQUIRE(s.warnings.size() == 5);
    CHECK(s.warnings[0].rfind("PAIRHIST_HDF5_PROBE_SECONDS=10s ignored: it takes whole seconds",
                              0) == 0);
    CHECK(s.warnings[1].rfind("PAIRHIST_PIN_BUDGET_MB=-1 ignored", 0) == 0);
    CHECK(s.warnings[2] == "PAIRHIST_MPI=yes ignored: it takes 1 or 0; using 1");
    CHECK(s.warnings[3] == "PAIRHIST_MPI_TIMEOUT=0 ignored: it takes seconds above 0; using 60");
    CHECK(s.warnings[4] ==
          "PAIRHIST_CPU_KERNELS=avx512 ignored: it takes auto or avx2; using auto");
  }
  for (size_t k = 0; k < saved.size(); ++k)
    if (saved[k] != "\x01") env_set(names[k], saved[k].c_str());
}
