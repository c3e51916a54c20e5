/* Using the pairhist C kernel API from C: the histograms of a 4x4x4 simple-cubic lattice of two
 * interpenetrating species (a checkerboard) in a periodic box, on the CPU and, when there is one,
 * on the GPU. Every atom has 6 nearest neighbours at distance 1, all of the other species.
 * Exits non-zero if the counts are not the crystal's. */
#include <pairhist/pairhist_c.h>
#include <stdio.h>
#include <string.h>

enum { SIDE = 4, NBINS = 20 };

int main(void) {
  float black[SIDE * SIDE * SIDE / 2 * 3], white[SIDE * SIDE * SIDE / 2 * 3];
  int64_t sizes[2] = {0, 0};
  for (int x = 0; x < SIDE; ++x)
    for (int y = 0; y < SIDE; ++y)
      for (int z = 0; z < SIDE; ++z) {
        const int s = (x + y + z) % 2;
        float* dst = s ? &white[3 * sizes[1]] : &black[3 * sizes[0]];
        dst[0] = (float)x;
        dst[1] = (float)y;
        dst[2] = (float)z;
        ++sizes[s];
      }
  const void* coordinates[2] = {black, white};
  ph_frame frame;
  memset(&frame, 0, sizeof(frame));
  frame.n_species = 2;
  frame.species_sizes = sizes;
  frame.coordinates = coordinates;
  frame.precision = PH_SINGLE;
  frame.box[0] = frame.box[4] = frame.box[8] = SIDE;
  frame.r_max = 2.0; /* half the box */
  frame.n_bins = NBINS;

  uint64_t hist[3 * NBINS];
  memset(hist, 0, sizeof(hist));
  if (ph_histograms_cpu(&frame, 0, hist) != 0) {
    fprintf(stderr, "ph_histograms_cpu: %s\n", ph_last_error());
    return 1;
  }
  /* Bin 10 holds r in [1.0, 1.1): the nearest neighbours, 32 atoms x 6 / 1 (cross pairs). */
  const uint64_t black_white_nearest = hist[1 * NBINS + 10];
  printf("black-white pairs at r = 1: %llu (expected %d)\n",
         (unsigned long long)black_white_nearest, SIDE * SIDE * SIDE / 2 * 6);
  int ok = black_white_nearest == SIDE * SIDE * SIDE / 2 * 6 && hist[0 * NBINS + 10] == 0;

  if (ph_gpu_count() > 0) {
    uint64_t gpu[3 * NBINS];
    memset(gpu, 0, sizeof(gpu));
    if (ph_histograms_gpu(&frame, 0, gpu) != 0) {
      fprintf(stderr, "ph_histograms_gpu: %s\n", ph_last_error());
      return 1;
    }
    printf("GPU histograms %s the CPU's\n",
           memcmp(gpu, hist, sizeof(hist)) ? "DIFFER from" : "equal");
    ok = ok && memcmp(gpu, hist, sizeof(hist)) == 0;
  }

  frame.r_max = -1.0; /* bad arguments are refused with a message */
  if (ph_histograms_cpu(&frame, 0, hist) == 0) return 1;
  printf("r_max -1 is refused: %s\n", ph_last_error());
  return ok ? 0 : 1;
}
