/* pairhist plain C kernel API: all pair-distance histograms of one multi-species frame, on the
 * CPU (OpenMP threads) or on one GPU, without StarPU. The same kernels as the task library, so
 * the counts are bit-identical to a `pairhist run` of the same frame.
 *
 * Example (two species, orthorhombic box, single precision):
 *
 *   const float* xyz[2] = {oxygen_xyz, hydrogen_xyz};     // x,y,z triples per atom
 *   const int64_t sizes[2] = {884, 1768};
 *   ph_frame f = {0};
 *   f.n_species = 2;
 *   f.species_sizes = sizes;
 *   f.coordinates = (const void* const*)xyz;
 *   f.precision = PH_SINGLE;
 *   f.box[0] = f.box[4] = f.box[8] = 3.0;                  // rows a, b, c
 *   f.r_max = 1.2;
 *   f.n_bins = 240;
 *   uint64_t hist[3 * 240] = {0};                          // ph_pair_count(2) histograms
 *   if (ph_histograms_cpu(&f, 0, hist) != 0) fprintf(stderr, "%s\n", ph_last_error());
 *
 * Histograms come in pair order (0,0), (0,1), ..., (0,S-1), (1,1), ..., (S-1,S-1); counts are
 * ADDED to what the array holds, so frames can be accumulated. Bin k counts the pairs with
 * floor(r * n_bins / r_max) == k (r >= r_max is not counted); same-species pairs once (i < j).
 * r is the minimum-image distance in a periodic box: exact at any distance in an orthorhombic
 * box; in a triclinic box r_max may not exceed half the shortest lattice vector (refused).
 * Every coordinate must be finite: a NaN or infinite one is refused, naming species and atom.
 */
#ifndef PAIRHIST_C_H
#define PAIRHIST_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { PH_SINGLE = 0, PH_DOUBLE = 1 } ph_precision;

/* How pairs are found: PH_AUTO (zero, the default) decides per species pair from a cost model;
 * PH_ALL_PAIRS examines every pair; PH_CELL_LIST only pairs of neighbouring cells of a grid of
 * cells about r_max wide (fast when r_max is much smaller than the system). The counts are the
 * same bit for bit. */
typedef enum { PH_AUTO = 0, PH_ALL_PAIRS = 1, PH_CELL_LIST = 2 } ph_algorithm;

typedef struct {
  int n_species;
  const int64_t* species_sizes;   /* atoms of each species */
  const void* const* coordinates; /* per species: x,y,z triples, float (PH_SINGLE) or double */
  ph_precision precision;
  double box[9]; /* box vectors as rows a, b, c (GROMACS lower-triangular
                    form); all zero = no periodic box */
  double r_max;
  int n_bins;
  ph_algorithm algorithm; /* PH_AUTO when zero-initialised */
} ph_frame;

/* Number of histograms for n_species species: n(n+1)/2. */
int ph_pair_count(int n_species);

/* All histograms of the frame on the CPU with n_threads OpenMP threads (0: all cores).
 * Returns 0, or -1 with a message in ph_last_error(). */
int ph_histograms_cpu(const ph_frame* frame, int n_threads, uint64_t* histograms);

/* The same on CUDA device `device` (whole call: copies in, kernels, copy out). Returns 0, or -1
 * (also when pairhist was built without CUDA). */
int ph_histograms_gpu(const ph_frame* frame, int device, uint64_t* histograms);

/* The build of the CPU kernels ph_histograms_cpu runs: "avx512" where this library and this CPU
 * have AVX-512 (x86-64-v4), else "avx2". */
const char* ph_cpu_kernels(void);

/* force != 0: ph_histograms_cpu runs the AVX2 kernels even on a CPU with AVX-512 (for A/B
 * measurements; the counts are the same); 0: the best the CPU has. For the whole process. */
void ph_force_avx2_kernels(int force);

/* Number of CUDA devices usable by ph_histograms_gpu (0 without CUDA). */
int ph_gpu_count(void);

/* Message of the last failed call in this thread. */
const char* ph_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* PAIRHIST_C_H */
