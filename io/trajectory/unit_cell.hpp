// Unit cells given as lengths and angles (a, b, c, alpha, beta, gamma: DCD, CADISHI, MDAnalysis)
// and GROMACS's lower-triangular box vectors, both ways.
#pragma once

#include <array>
#include <string>

namespace pairhist::io {

/// cos(degrees), exactly 0 at 90 degrees so that orthorhombic cells stay free of 1e-17 tilt noise.
double cos_degrees(double degrees);

/// Box vectors as rows (a along x, b in the xy plane, GROMACS's form) of the cell with edge
/// lengths a, b, c and the cosines of alpha (b^c), beta (a^c), gamma (a^b); lengths stay in their
/// unit. Returns "" on success, otherwise the problem ("degenerate unit cell (...)") and leaves
/// `box` unspecified.
std::string box_from_cell(double a, double b, double c, double cos_alpha, double cos_beta,
                          double cos_gamma, std::array<double, 9>& box);

/// The cell whose edges are the rows of CHARMM's symmetric shape matrix, stored as its lower
/// triangle (XTLABC: h11, h21, h22, h31, h32, h33), as CHARMM (c36 at least) writes a triclinic
/// cell into DCD files. Its edges are not GROMACS's lower-triangular box: the coordinates are in
/// the frame of these rows. `box` gets the lower-triangular box of the same lattice and
/// `rotation` the rows q1, q2, q3 of the orthonormal frame that makes it (q1 along the first
/// edge, q2 in the plane of the first two): a point x of the file is (q1.x, q2.x, q3.x) there, so
/// that atoms and box stay one periodic system. Returns "" or the problem.
std::string box_from_shape_matrix(const double lower[6], std::array<double, 9>& box,
                                  std::array<double, 9>& rotation);

/// Edge lengths and angles in degrees (a, b, c, alpha, beta, gamma) of box rows; all zero for an
/// all-zero box. The inverse of box_from_cell up to rounding; exactly 90 for orthogonal edges.
std::array<double, 6> cell_from_box(const std::array<double, 9>& box);

}  // namespace pairhist::io
