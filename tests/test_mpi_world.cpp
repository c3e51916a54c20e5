// How a process joins an MPI job, without MPI: the transport chosen for a job on one node.
#include <doctest/doctest.h>

#include <string>

#include "drivers/distributed/mpi_world.hpp"
#include "pairhist/environment.hpp"

using namespace pairhist;

namespace {

std::string pml() {
  const char* v = env_get("OMPI_MCA_pml");
  return v ? v : "(unset)";
}

}  // namespace

TEST_CASE("an OpenMPI job on one node gets the shared-memory layer unless its user chose one") {
  const std::string before = pml();
  env_unset("OMPI_MCA_pml");
  {
    ScopedEnv size("OMPI_COMM_WORLD_SIZE", "4");
    ScopedEnv local("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
    CHECK(MpiWorld::choose_one_node_transport());
    CHECK(pml() == "ob1");
  }
  env_unset("OMPI_MCA_pml");
  SUBCASE("ranks on several nodes keep OpenMPI's choice") {
    ScopedEnv size("OMPI_COMM_WORLD_SIZE", "8");
    ScopedEnv local("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
    CHECK_FALSE(MpiWorld::choose_one_node_transport());
    CHECK(pml() == "(unset)");
  }
  SUBCASE("another launcher than OpenMPI's is left alone") {
    ScopedEnv size("OMPI_COMM_WORLD_SIZE", "");
    ScopedEnv local("OMPI_COMM_WORLD_LOCAL_SIZE", "");
    CHECK_FALSE(MpiWorld::choose_one_node_transport());
    CHECK(pml() == "(unset)");
  }
  SUBCASE("the user's layer (mpirun --mca pml ucx passes OMPI_MCA_pml) stays") {
    ScopedEnv size("OMPI_COMM_WORLD_SIZE", "2");
    ScopedEnv local("OMPI_COMM_WORLD_LOCAL_SIZE", "2");
    ScopedEnv user("OMPI_MCA_pml", "ucx");
    CHECK_FALSE(MpiWorld::choose_one_node_transport());
    CHECK(pml() == "ucx");
  }
  if (before == "(unset)")
    env_unset("OMPI_MCA_pml");
  else
    env_set("OMPI_MCA_pml", before.c_str());
}
