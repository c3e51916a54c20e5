// The environment under one lock (pairhist/environment.hpp): variables added while other threads
// read it, as a run's engine start does while its decoding threads run.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "pairhist/environment.hpp"

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
