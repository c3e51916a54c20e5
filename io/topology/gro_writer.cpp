#include "io/topology/gro_writer.hpp"

#include <cstdio>
#include <memory>

#include "io/common/atomic_file.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

void write_gro(const std::string& path, const Topology& top) {
  AtomicOutput out(path);
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(out.temp_path().c_str(), "w"),
                                                      &std::fclose);
    if (!f) throw OutputError(path + ": cannot create the file");
    std::fprintf(f.get(), "%s\n%5d\n", top.title.empty() ? "pairhist" : top.title.c_str(),
                 top.natoms());
    for (int i = 0; i < top.natoms(); ++i) {
      const size_t k = static_cast<size_t>(i);
      const std::string& name = top.atom_names[k];
      const std::string res = k < top.residue_names.size() && !top.residue_names[k].empty()
                                  ? top.residue_names[k]
                                  : name;
      const int resnr = k < top.residue_numbers.size() && top.residue_numbers[k] > 0
                            ? top.residue_numbers[k]
                            : i + 1;
      std::fprintf(f.get(), "%5d%-5.5s%5.5s%5d%8.3f%8.3f%8.3f\n", resnr % 100000, res.c_str(),
                   name.c_str(), (i + 1) % 100000, top.xyz[3 * k], top.xyz[3 * k + 1],
                   top.xyz[3 * k + 2]);
    }
    const auto& b = top.box;
    std::fprintf(f.get(), "%10.5f%10.5f%10.5f", b[0], b[4], b[8]);
    if (b[1] != 0 || b[2] != 0 || b[3] != 0 || b[5] != 0 || b[6] != 0 || b[7] != 0)
      std::fprintf(f.get(), "%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f", b[1], b[2], b[3], b[5], b[6],
                   b[7]);
    std::fprintf(f.get(), "\n");
    if (std::ferror(f.get()) || std::fclose(f.release()) != 0)
      throw OutputError(path + ": write failed");
  }
  out.commit();
}

}  // namespace pairhist::io
