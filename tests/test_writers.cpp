// Round-trip checks of the HDF5, CSV and xvg writers, and of their all-or-nothing behaviour.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/rdf.hpp"
#include "io/common/atomic_file.hpp"
#include "io/results/hdf5_writer.hpp"
#include "io/results/result_checksum.hpp"
#include "io/results/text_writers.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/result.hpp"

namespace fs = std::filesystem;
using pairhist::HistogramResult;
using pairhist::PairHistogram;
using pairhist::SpeciesInfo;

namespace {

/// A fresh directory per test case, removed afterwards.
struct TempDir {
  fs::path dir;
  TempDir() {
    static int serial = 0;
    dir = fs::temp_directory_path() /
          ("pairhist_test_" + std::to_string(::getpid()) + "_" + std::to_string(serial++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    return names;
  }
};

constexpr uint64_t kBig = (uint64_t{1} << 40) + 7;       // beyond 32 bits
constexpr uint64_t kHuge = (uint64_t{1} << 63) + 12345;  // beyond int64

HistogramResult sample_result(bool with_box) {
  HistogramResult res;
  res.species = {SpeciesInfo{"O", "name OW", 3}, SpeciesInfo{"H", "name HW1 HW2", 6}};
  res.r_max = 0.8;
  res.nbins = 4;
  res.length_unit = "nm";
  res.box_kind = with_box ? "orthorhombic" : "none";
  res.precision = "single";
  res.pairs = {PairHistogram{0, 0, {0, 5, kBig, 11}}, PairHistogram{0, 1, {1, 2, 3, kHuge}},
               PairHistogram{1, 1, {4294967296ULL, 0, 9, 8}}};
  res.frame_indices = {10, 20, 40};
  res.frame_times = {1.0, 2.0, 4.0};
  if (with_box) res.volumes = {27.0, 27.5, 26.5};
  return res;
}

// --- HDF5 reading helpers: every call is checked so a layout error fails loudly. ---

hid_t open_dataset(hid_t file, const std::string& name) {
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  INFO("dataset ", name);
  REQUIRE(d >= 0);
  return d;
}

bool has_type(hid_t obj_type, hid_t expected) {
  return H5Tequal(obj_type, expected) > 0;
}

template <typename T>
std::vector<T> read_1d(hid_t file, const std::string& name, hid_t file_type, hid_t mem_type) {
  const hid_t d = open_dataset(file, name);
  const hid_t space = H5Dget_space(d);
  INFO("dataset ", name);
  REQUIRE(H5Sget_simple_extent_ndims(space) == 1);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  const hid_t type = H5Dget_type(d);
  CHECK(has_type(type, file_type));
  std::vector<T> v(n);
  if (n > 0) {
    REQUIRE(H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
  }
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  return v;
}

template <typename T>
T read_scalar(hid_t file, const std::string& name, hid_t file_type, hid_t mem_type) {
  const hid_t d = open_dataset(file, name);
  const hid_t space = H5Dget_space(d);
  INFO("dataset ", name);
  CHECK(H5Sget_simple_extent_type(space) == H5S_SCALAR);
  const hid_t type = H5Dget_type(d);
  CHECK(has_type(type, file_type));
  T value{};
  REQUIRE(H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) >= 0);
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  return value;
}

template <typename T>
T read_attr(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type) {
  const hid_t a = H5Aopen(obj, name.c_str(), H5P_DEFAULT);
  INFO("attribute ", name);
  REQUIRE(a >= 0);
  const hid_t type = H5Aget_type(a);
  CHECK(has_type(type, file_type));
  T value{};
  REQUIRE(H5Aread(a, mem_type, &value) >= 0);
  H5Tclose(type);
  H5Aclose(a);
  return value;
}

std::string read_string_attr(hid_t obj, const std::string& name) {
  const hid_t a = H5Aopen(obj, name.c_str(), H5P_DEFAULT);
  INFO("attribute ", name);
  REQUIRE(a >= 0);
  const hid_t type = H5Aget_type(a);
  CHECK(H5Tget_class(type) == H5T_STRING);
  CHECK(H5Tis_variable_str(type) > 0);
  CHECK(H5Tget_cset(type) == H5T_CSET_UTF8);
  char* text = nullptr;
  REQUIRE(H5Aread(a, type, &text) >= 0);
  std::string value = text ? text : "";
  H5free_memory(text);
  H5Tclose(type);
  H5Aclose(a);
  return value;
}

bool exists(hid_t file, const std::string& path) {
  return H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, sep)) fields.push_back(f);
  return fields;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

bool no_temporaries(const TempDir& t) {
  for (const auto& name : t.entries()) {
    if (name.find(".tmp.") != std::string::npos) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("HDF5 round trip with a periodic box") {
  TempDir t;
  const HistogramResult res = sample_result(true);
  const std::string config = "r_max: 0.8\nnbins: 4\nspecies:\n  O: name OW\n";
  const std::string path = t.path("out.h5");
  pairhist::io::write_hdf5(path, res, config);
  CHECK(t.entries() == std::vector<std::string>{"out.h5"});

  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);

  // CADISHI-compatible block named after the last frame.
  CHECK(exists(f, "/40"));
  CHECK_FALSE(exists(f, "/10"));
  CHECK(read_1d<uint64_t>(f, "/40/histograms/O,O", H5T_STD_U64LE, H5T_NATIVE_UINT64) ==
        res.pairs[0].counts);
  CHECK(read_1d<uint64_t>(f, "/40/histograms/O,H", H5T_STD_U64LE, H5T_NATIVE_UINT64) ==
        res.pairs[1].counts);
  CHECK(read_1d<uint64_t>(f, "/40/histograms/H,H", H5T_STD_U64LE, H5T_NATIVE_UINT64) ==
        res.pairs[2].counts);
  const auto radii = read_1d<double>(f, "/40/histograms/radii", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
  REQUIRE(radii.size() == 4);
  CHECK(radii[0] == doctest::Approx(0.1));
  CHECK(radii[3] == doctest::Approx(0.7));
  CHECK(read_scalar<int64_t>(f, "/40/particle_numbers/O", H5T_STD_I64LE, H5T_NATIVE_INT64) == 3);
  CHECK(read_scalar<int64_t>(f, "/40/particle_numbers/H", H5T_STD_I64LE, H5T_NATIVE_INT64) == 6);
  CHECK(read_scalar<double>(f, "/40/volumes/box", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) ==
        doctest::Approx(27.0));

  // pairhist metadata.
  const hid_t meta = H5Gopen2(f, "/pairhist", H5P_DEFAULT);
  REQUIRE(meta >= 0);
  CHECK(read_string_attr(meta, "version") == "0.1.0");
  CHECK(read_string_attr(meta, "length_unit") == "nm");
  CHECK(read_string_attr(meta, "box_kind") == "orthorhombic");
  CHECK(read_string_attr(meta, "precision") == "single");
  CHECK(read_string_attr(meta, "config") == config);
  CHECK(read_attr<double>(meta, "r_max", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) == 0.8);
  CHECK(read_attr<int64_t>(meta, "nbins", H5T_STD_I64LE, H5T_NATIVE_INT64) == 4);
  CHECK(read_attr<int64_t>(meta, "n_frames", H5T_STD_I64LE, H5T_NATIVE_INT64) == 3);
  CHECK(read_attr<int64_t>(meta, "complete", H5T_STD_I64LE, H5T_NATIVE_INT64) == 1);
  CHECK(read_string_attr(meta, "norm") == "rdf");
  CHECK(read_string_attr(meta, "exclude") == "none");
  // The checksum of everything else (issue 40), the attribute written last.
  const std::string checksum = read_string_attr(meta, "checksum");
  CHECK(checksum.size() == 14);
  CHECK(checksum.rfind("crc32:", 0) == 0);
  CHECK(checksum == pairhist::io::result_checksum(f, path));
  CHECK(H5Aget_num_attrs(meta) == 12);
  H5Gclose(meta);

  CHECK(read_1d<double>(f, "/pairhist/bin_edges", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) ==
        pairhist::analysis::bin_edges(0.8, 4));
  CHECK(read_1d<int64_t>(f, "/pairhist/frame_indices", H5T_STD_I64LE, H5T_NATIVE_INT64) ==
        res.frame_indices);
  CHECK(read_1d<double>(f, "/pairhist/frame_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) ==
        res.frame_times);
  CHECK(read_1d<double>(f, "/pairhist/volumes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) == res.volumes);
  const char* names[] = {"O,O", "O,H", "H,H"};
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(names[i]);
    const auto curve = pairhist::analysis::compute_rdf(res, res.pairs[i]);
    CHECK(read_1d<double>(f, std::string("/pairhist/rdf/") + names[i], H5T_IEEE_F64LE,
                          H5T_NATIVE_DOUBLE) == curve.g);
    CHECK(read_1d<double>(f, std::string("/pairhist/coordination/") + names[i], H5T_IEEE_F64LE,
                          H5T_NATIVE_DOUBLE) == curve.coordination);
  }
  H5Fclose(f);
}

TEST_CASE("HDF5 without a box omits volumes and g(r)") {
  TempDir t;
  HistogramResult res = sample_result(false);
  res.frame_times.clear();  // e.g. a trajectory format without times: an empty dataset
  const std::string path = t.path("nobox.h5");
  pairhist::io::write_hdf5(path, res, "");

  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  CHECK(read_1d<uint64_t>(f, "/40/histograms/O,H", H5T_STD_U64LE, H5T_NATIVE_UINT64) ==
        res.pairs[1].counts);
  CHECK_FALSE(exists(f, "/40/volumes"));
  CHECK_FALSE(exists(f, "/pairhist/volumes"));
  CHECK_FALSE(exists(f, "/pairhist/rdf"));
  CHECK_FALSE(exists(f, "/pairhist/coordination"));
  CHECK(read_1d<double>(f, "/pairhist/frame_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE).empty());
  const hid_t meta = H5Gopen2(f, "/pairhist", H5P_DEFAULT);
  REQUIRE(meta >= 0);
  CHECK(read_string_attr(meta, "box_kind") == "none");
  CHECK(read_string_attr(meta, "config").empty());
  H5Gclose(meta);
  H5Fclose(f);
}

TEST_CASE("HDF5 config text beyond the 64 KiB attribute header limit") {
  TempDir t;
  std::string config;
  while (config.size() < 200000) config += "a fairly long configuration line\n";
  const std::string path = t.path("big.h5");
  pairhist::io::write_hdf5(path, sample_result(true), config);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t meta = H5Gopen2(f, "/pairhist", H5P_DEFAULT);
  CHECK(read_string_attr(meta, "config") == config);
  H5Gclose(meta);
  H5Fclose(f);
}

TEST_CASE("HDF5 writer rejects unwritable results before touching the disk") {
  TempDir t;
  HistogramResult res = sample_result(true);
  res.species[1].name = "H/W";
  CHECK_THROWS_AS(pairhist::io::write_hdf5(t.path("x.h5"), res, ""), pairhist::UsageError);
  res = sample_result(true);
  res.frame_indices.clear();
  res.volumes.clear();
  CHECK_THROWS_AS(pairhist::io::write_hdf5(t.path("x.h5"), res, ""), pairhist::UsageError);
  CHECK(t.entries().empty());
}

TEST_CASE("CSV round trip") {
  TempDir t;
  const HistogramResult res = sample_result(true);
  const std::string path = t.path("rdf.csv");
  pairhist::io::write_rdf_csv(path, res);
  const auto lines = read_lines(path);
  REQUIRE(!lines.empty());
  // The column names first (numpy.genfromtxt(names=True) reads them from line 1), then the
  // '#' lines, then the rows.
  CHECK(lines[0] == "r_nm,count_O-O,g_O-O,n_O-O,count_O-H,g_O-H,n_O-H,count_H-H,g_H-H,n_H-H");
  CHECK(lines[1] == "# pairhist 0.1.0");
  size_t first = 1;
  while (first < lines.size() && lines[first].rfind("#", 0) == 0) ++first;
  REQUIRE(lines.size() == first + 4);
  for (int k = 0; k < 4; ++k) {
    CAPTURE(k);
    const auto fields = split(lines[first + k], ',');
    REQUIRE(fields.size() == 10);
    CHECK(std::stod(fields[0]) == doctest::Approx((k + 0.5) * 0.2));
    for (size_t i = 0; i < 3; ++i) {
      const auto curve = pairhist::analysis::compute_rdf(res, res.pairs[i]);
      CHECK(std::stoull(fields[1 + 3 * i]) == res.pairs[i].counts[k]);
      CHECK(std::stod(fields[2 + 3 * i]) == doctest::Approx(curve.g[k]).epsilon(1e-9));
      CHECK(std::stod(fields[3 + 3 * i]) == doctest::Approx(curve.coordination[k]).epsilon(1e-9));
    }
  }
}

TEST_CASE("CSV without a box has counts only") {
  TempDir t;
  const HistogramResult res = sample_result(false);
  const std::string path = t.path("counts.csv");
  pairhist::io::write_rdf_csv(path, res);
  const auto lines = read_lines(path);
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "r_nm,count_O-O,count_O-H,count_H-H");
  size_t first = 1;
  while (first < lines.size() && lines[first].rfind("#", 0) == 0) ++first;
  REQUIRE(lines.size() == first + 4);
  CHECK(lines[first + 3] == "0.7,11," + std::to_string(kHuge) + ",8");
}

TEST_CASE("xvg round trip") {
  TempDir t;
  const HistogramResult res = sample_result(true);
  const std::string path = t.path("rdf.xvg");
  pairhist::io::write_xvg(path, res);
  const auto lines = read_lines(path);
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  for (const auto& line : lines) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '@') {
      header.push_back(line);
      continue;
    }
    std::stringstream ss(line);
    std::vector<double> row;
    double x;
    while (ss >> x) row.push_back(x);
    rows.push_back(row);
  }
  auto has = [&](const std::string& h) {
    for (const auto& l : header)
      if (l == h) return true;
    return false;
  };
  CHECK(has("@    title \"Radial distribution\""));
  CHECK(has("@    xaxis  label \"r (nm)\""));
  CHECK(has("@    yaxis  label \"g(r)\""));
  CHECK(has("@TYPE xy"));
  CHECK(has("@ s0 legend \"O-O\""));
  CHECK(has("@ s1 legend \"O-H\""));
  CHECK(has("@ s2 legend \"H-H\""));
  REQUIRE(rows.size() == 4);
  for (int k = 0; k < 4; ++k) {
    REQUIRE(rows[k].size() == 4);
    CHECK(rows[k][0] == doctest::Approx((k + 0.5) * 0.2));
    for (size_t i = 0; i < 3; ++i) {
      CHECK(rows[k][1 + i] ==
            doctest::Approx(pairhist::analysis::compute_rdf(res, res.pairs[i]).g[k]).epsilon(1e-9));
    }
  }
}

TEST_CASE("cn.xvg holds the running coordination numbers") {
  TempDir t;
  const HistogramResult res = sample_result(true);
  const std::string path = t.path("cn.xvg");
  pairhist::io::write_cn_xvg(path, res);
  std::vector<std::vector<double>> rows;
  bool legend = false;
  for (const auto& line : read_lines(path)) {
    if (line == "@ s1 legend \"O-H\"") legend = true;
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    std::stringstream ss(line);
    std::vector<double> row;
    double x;
    while (ss >> x) row.push_back(x);
    rows.push_back(row);
  }
  CHECK(legend);
  REQUIRE(rows.size() == 4);
  for (int k = 0; k < 4; ++k)
    for (size_t i = 0; i < 3; ++i)
      CHECK(rows[k][1 + i] ==
            doctest::Approx(pairhist::analysis::compute_rdf(res, res.pairs[i]).coordination[k])
                .epsilon(1e-9));
}

TEST_CASE("xvg needs a box") {
  TempDir t;
  CHECK_THROWS_AS(pairhist::io::write_xvg(t.path("rdf.xvg"), sample_result(false)),
                  pairhist::UsageError);
  CHECK(t.entries().empty());
}

TEST_CASE("writing into a missing directory throws OutputError and leaves nothing") {
  TempDir t;
  const std::string missing = t.path("no_such_dir");
  const HistogramResult res = sample_result(true);
  H5E_auto2_t before_func = nullptr;
  void* before_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &before_func, &before_data);

  CHECK_THROWS_AS(pairhist::io::write_hdf5(missing + "/out.h5", res, "cfg"), pairhist::OutputError);
  CHECK_THROWS_WITH(pairhist::io::write_hdf5(missing + "/out.h5", res, "cfg"),
                    doctest::Contains((missing + "/out.h5").c_str()));
  CHECK_THROWS_AS(pairhist::io::write_rdf_csv(missing + "/out.csv", res), pairhist::OutputError);
  CHECK_THROWS_AS(pairhist::io::write_xvg(missing + "/out.xvg", res), pairhist::OutputError);
  CHECK_FALSE(fs::exists(missing));
  CHECK(t.entries().empty());

  // The writer silences HDF5's error printing only while it runs.
  H5E_auto2_t after_func = nullptr;
  void* after_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &after_func, &after_data);
  CHECK((after_func == before_func));
  CHECK(after_data == before_data);
}

TEST_CASE("a failure after the temporary was written leaves no temporary") {
  // A directory at the target path makes the final rename fail after the whole file was written.
  TempDir t;
  const HistogramResult res = sample_result(true);
  for (const std::string name : {"out.h5", "out.csv", "out.xvg"}) {
    CAPTURE(name);
    fs::create_directory(t.path(name));
    if (name == "out.h5") {
      CHECK_THROWS_AS(pairhist::io::write_hdf5(t.path(name), res, ""), pairhist::OutputError);
    } else if (name == "out.csv") {
      CHECK_THROWS_AS(pairhist::io::write_rdf_csv(t.path(name), res), pairhist::OutputError);
    } else {
      CHECK_THROWS_AS(pairhist::io::write_xvg(t.path(name), res), pairhist::OutputError);
    }
    CHECK(fs::is_directory(t.path(name)));
    CHECK(no_temporaries(t));
  }
  try {
    pairhist::io::write_rdf_csv(t.path("out.csv"), res);
  } catch (const pairhist::OutputError& e) {
    // One line naming the target, so drivers can print it as it is.
    const std::string msg = e.what();
    CHECK(msg.find('\n') == std::string::npos);
    CHECK(msg.find(t.path("out.csv")) != std::string::npos);
  }
}

TEST_CASE("a failed write keeps the previous file") {
  TempDir t;
  const std::string path = t.path("rdf.xvg");
  { std::ofstream(path) << "previous\n"; }
  CHECK_THROWS_AS(pairhist::io::write_xvg(path, sample_result(false)), pairhist::UsageError);
  CHECK(read_lines(path) == std::vector<std::string>{"previous"});
  // A successful write replaces it.
  pairhist::io::write_xvg(path, sample_result(true));
  CHECK(read_lines(path).size() > 1);
  CHECK(t.entries() == std::vector<std::string>{"rdf.xvg"});
}

TEST_CASE("AtomicOutput") {
  TempDir t;
  const std::string target = t.path("file.txt");
  SUBCASE("temporary sits hidden next to the target") {
    pairhist::io::AtomicOutput out(target);
    CHECK(out.temp_path() ==
          t.path(".file.txt.tmp." + std::to_string(static_cast<long long>(::getpid()))));
    CHECK(out.final_path() == target);
  }
  SUBCASE("bare file name stays in the working directory") {
    pairhist::io::AtomicOutput out("plain.dat");
    CHECK(out.temp_path().rfind(".plain.dat.tmp.", 0) == 0);
  }
  SUBCASE("uncommitted temporary is removed") {
    {
      pairhist::io::AtomicOutput out(target);
      std::ofstream(out.temp_path()) << "partial";
      CHECK(fs::exists(out.temp_path()));
    }
    CHECK(t.entries().empty());
  }
  SUBCASE("commit renames over an existing file") {
    { std::ofstream(target) << "old"; }
    {
      pairhist::io::AtomicOutput out(target);
      std::ofstream(out.temp_path()) << "new";
      out.commit();
      CHECK(out.committed());
    }
    CHECK(read_lines(target) == std::vector<std::string>{"new"});
    CHECK(t.entries() == std::vector<std::string>{"file.txt"});
  }
  SUBCASE("commit without a temporary fails") {
    pairhist::io::AtomicOutput out(target);
    CHECK_THROWS_AS(out.commit(), pairhist::OutputError);
    CHECK_FALSE(out.committed());
  }
  SUBCASE("a path without a file name is rejected") {
    CHECK_THROWS_AS(pairhist::io::AtomicOutput(t.dir.string() + "/"), pairhist::OutputError);
  }
}
