// The two dispatchers every kernel entry goes through: a run-time box kind to the kernels'
// instantiation for it (dispatch_box_kind), a run-time precision to the coordinate type
// (dispatch_precision). Each value must reach its own tag, and a value outside the enum must fail
// with a message, not fall through to some kernel.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "pairhist/box_setup.hpp"
#include "pairhist/precision.hpp"

using namespace pairhist;

namespace {

// The tag a dispatcher handed over, as a value: the kind, read at compile time.
template <class Tag>
constexpr BoxKind kind_of(Tag) {
  constexpr BoxKind k = Tag::value;  // a constant expression, as a template argument needs
  return k;
}

}  // namespace

TEST_CASE("dispatch_box_kind hands every box kind its own tag") {
  for (BoxKind k : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(k));
    int calls = 0;
    const BoxKind seen = dispatch_box_kind(k, [&](auto kind) {
      static_assert(std::is_same_v<decltype(kind), BoxKindTag<decltype(kind)::value>>);
      ++calls;
      return kind_of(kind);
    });
    CHECK(seen == k);
    CHECK(calls == 1);
  }
}

TEST_CASE("dispatch_box_kind picks the kernel of the kind: the minimum image or none") {
  // 10 bins per unit (r_max 0.5, 5 bins) in cells of edge 1: points at x = 0.05 and x = 0.95 are
  // 0.1 apart through the boundary (bin 1), 0.9 apart without a box (beyond r_max: bin nbins).
  const BoxMatrix cube{1, 0, 0, 0, 1, 0, 0, 0, 1};
  const BoxMatrix rhombic = rhombic_dodecahedron(1.0);
  const auto bin = [](BoxKind kind, const BoxMatrix& m) {
    const HistogramParams<double> p = make_params<double>(m, kind, 0.5, 5);
    return dispatch_box_kind(p.box.kind, [&](auto k) {
      return bin_of_points<decltype(k)::value>(p, 0.05, 0.5, 0.5, 0.95, 0.5, 0.5);
    });
  };
  CHECK(bin(BoxKind::none, BoxMatrix{}) == 5);
  CHECK(bin(BoxKind::orthorhombic, cube) == 1);
  const HistogramParams<double> tri = make_params<double>(rhombic, BoxKind::triclinic, 0.5, 5);
  CHECK(bin(BoxKind::triclinic, rhombic) ==
        bin_of_points<BoxKind::triclinic>(tri, 0.05, 0.5, 0.5, 0.95, 0.5, 0.5));
  CHECK(bin(BoxKind::triclinic, rhombic) == 1);
}

TEST_CASE("dispatch_box_kind refuses a value outside BoxKind, calling nothing") {
  int calls = 0;
  const auto count = [&](auto) { ++calls; };
  CHECK_THROWS_WITH_AS(dispatch_box_kind(static_cast<BoxKind>(3), count), "unknown box kind 3",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(dispatch_box_kind(static_cast<BoxKind>(-1), count), "unknown box kind -1",
                       std::invalid_argument);
  CHECK(calls == 0);
}

TEST_CASE("dispatch_precision hands single float and double_ double") {
  const auto type_name = [](Precision p) {
    return dispatch_precision(p, [](auto precision) {
      using T = typename decltype(precision)::type;
      static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
      return std::is_same_v<T, float> ? std::string("float") : std::string("double");
    });
  };
  CHECK(type_name(Precision::single) == "float");
  CHECK(type_name(Precision::double_) == "double");
  // What the kernels then count in: float rounds 0.1 to its own nearest value.
  const auto tenth = [](Precision p) {
    return dispatch_precision(
        p, [](auto precision) { return double(typename decltype(precision)::type(0.1)); });
  };
  CHECK(tenth(Precision::single) == double(0.1f));
  CHECK(tenth(Precision::double_) == 0.1);
}

TEST_CASE("dispatch_precision refuses a value outside Precision, calling nothing") {
  int calls = 0;
  CHECK_THROWS_WITH_AS(dispatch_precision(static_cast<Precision>(2), [&](auto) { ++calls; }),
                       "unknown precision 2", std::invalid_argument);
  CHECK(calls == 0);
}

TEST_CASE("the dispatchers return what the function returns, references included") {
  int value = 1;
  int& same = dispatch_box_kind(BoxKind::triclinic, [&](auto) -> int& { return value; });
  CHECK(&same == &value);
  int& also = dispatch_precision(Precision::double_, [&](auto) -> int& { return value; });
  CHECK(&also == &value);
  dispatch_precision(Precision::single, [&](auto) { value = 2; });  // void
  CHECK(value == 2);
}
