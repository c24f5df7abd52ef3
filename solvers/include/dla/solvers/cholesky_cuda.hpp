#pragma once
// Cholesky factorization and solves on device buffers (LAPACK potrf/potrs/posv).
//
// spotrf/dpotrf: A = L L^T (uplo = Lower) or A = U^T U (uplo = Upper), in
// place. Only the `uplo` triangle of A is read and written; the other strict
// triangle is neither referenced nor modified. `info` is a device int written
// asynchronously (like cuSOLVER's devInfo): 0 on success, k > 0 when the
// leading minor of order k is not positive definite (the factorization stopped
// there; the rest of the triangle is unspecified). The return value is 0 or
// -i for an invalid argument i (uplo = 1, n = 2, A = 3, lda = 4, info = 5,
// workspace = 6). Asynchronous on `stream`.
//
// Workspace (`workspace`, `workspace_bytes` of it; nullptr / 0 allowed):
// spotrf's fast kernels load A in 16-byte vectors, which needs lda % 4 == 0
// and A 16-byte aligned. Where A is not so aligned and potrf_pads(n), and the
// workspace is 16-byte aligned, does not overlap A and holds at least
// spotrf_buffer_size(n, A, lda) bytes, spotrf copies the triangle into it with
// a leading dimension rounded up to 32, factors it there and copies it back
// (H100: n = 4097 1.77 ms in place against 4096's 1.31, session 48; 1.41-1.45
// with the copy, session 49).
// Otherwise (a smaller or null workspace, the default 0 bytes) it factors in
// place: correct, on the slower paths. spotrf never writes more than
// workspace_bytes.
//
// Algorithm: blocked right-looking with look-ahead; block size nb from the
// rule in potrf_block_size(n) or the DLA_POTRF_NB environment variable; the
// bulk of the trailing update applies potrf_update_depth(n, ...) panels at once
// (DLA_POTRF_DEPTH overrides).
#include <cstddef>
#include <cstdint>

#include "dla/core/alignment.hpp"
#include "dla/core/types.hpp"

namespace dla::cuda {

// Bytes of workspace spotrf / dpotrf use for this A (0 where none: dpotrf
// always; spotrf where A is aligned or potrf_pads(n) is false). Like
// cusolverDnSpotrf_bufferSize, it takes the matrix: A is only looked at for
// its alignment.
std::size_t spotrf_buffer_size(index_t n, const float* A, index_t lda);
std::size_t dpotrf_buffer_size(index_t n, const double* A, index_t lda);
// Whether spotrf, given the workspace, factors a misaligned A of order n in
// an aligned copy (above). DLA_POTRF_PAD=1 / 0 overrides.
bool potrf_pads(index_t n);
// The smallest order potrf_pads takes.
inline constexpr index_t kPotrfPadMin = 1024;
// "Aligned" is dla::columns_aligned16 (lda % 4 == 0, A 16-byte aligned); the
// copy's leading dimension is dla::aligned_ld(n) (dla/core/alignment.hpp).
// The block size spotrf/dpotrf use for order n (DLA_POTRF_NB overrides).
index_t potrf_block_size(index_t n);
// How many panels (of nb columns) each bulk trailing update applies at once,
// k = depth * nb (DLA_POTRF_DEPTH overrides); see docs/cholesky.md. The
// rule depends on how the update products run (tensor_cores =
// potrf_tensor_core_updates(...), below).
index_t potrf_update_depth(index_t n, bool tensor_cores);
// The depth of the look-ahead group that starts at column col of an order-n
// factorization whose rule depth is `depth`: for spotrf on the tensor cores
// (single_tensor_cores), while the trailing matrix is larger than
// kPotrfEarlyGroupsTrailing (2600), depth + 2 where the bulk update runs on
// the SM partition (n < 6144) and from 12288, depth + 1 between; else depth.
// The early steps wait for the bulk update, which runs better at a deeper k
// (session 39). DLA_POTRF_EARLY_GROUPS=1 takes the deeper early groups for
// both precisions, 0 never; DLA_POTRF_DEPTH (uniform groups) turns them off;
// DLA_POTRF_EARLY_EXTRA and DLA_POTRF_EARLY_TRAILING set the extra depth and
// the trailing order (tuning runs, session 52). From n = 10240 (spotrf on
// the tensor cores, no DLA_POTRF_DEPTH) the groups that start where the
// trailing order is at most 4000 take at most 2 panels (session 55: the last
// steps run alone, and a deep group's next-column update has a deep k on a
// few tiles); DLA_POTRF_LATE_DEPTH / DLA_POTRF_LATE_TRAILING set that cap
// (at every order) and its trailing order, DLA_POTRF_FIRST_DEPTH the depth
// of the first group (tuning runs).
index_t potrf_group_depth(index_t n, index_t col, index_t depth, bool single_tensor_cores);
// The trailing order above which potrf_group_depth deepens a group: the
// rule's kPotrfEarlyGroupsTrailing, or DLA_POTRF_EARLY_TRAILING.
inline constexpr index_t kPotrfEarlyGroupsTrailing = 2600;
index_t potrf_early_groups_trailing();
// How many SMs the look-ahead's bulk trailing update may use, on a device of
// sm_count SMs (0: all; DLA_POTRF_SIDE_SMS overrides). The others stay free
// for the critical path (diagonal blocks, panels, next block columns), which
// otherwise waits for update blocks to retire. tensor_cores as above (since
// session 37 the rule is the same for both, so that a process that runs
// both kinds makes one partition).
index_t potrf_side_sms(index_t n, bool tensor_cores, index_t sm_count);
// Whether spotrf factors its diagonal blocks of order <= 128 with the leaf
// kernel (16-column leaves) instead of the tile kernel, for order n
// (DLA_POTRF_DIAG_LEAF=1 / 0 overrides).
bool potrf_leaf_diag(index_t n);
// Where potrf_leaf_diag(n) is false: the trailing order at or below which
// spotrf's look-ahead steps still take the leaf kernel (0: none; the rule:
// 5000, session 55). In the last steps of a large order nothing runs beside
// the diagonal kernel, and there the leaf kernel is the faster one.
// DLA_POTRF_LEAF_TAIL overrides (also under DLA_POTRF_DIAG_LEAF=0, which
// otherwise means no step).
index_t potrf_leaf_tail(index_t n);
// Whether spotrf's look-ahead (single_tensor_cores as for potrf_group_depth)
// applies the first (larger) half of each group's panels (groups of 2 or
// more; potrf_trap_half_panels) to the next group's trapezoid on the side
// stream as soon as they are done, so that the critical path's trapezoid at
// the group's end applies only the other half: below kPotrfTrapHalfBelow.
// DLA_POTRF_TRAP_HALF=1 / 0 overrides.
bool potrf_trap_half(index_t n, bool single_tensor_cores);
inline constexpr index_t kPotrfTrapHalfBelow = 4608;
// How many of a halved group's group_depth (>= 2) panels go to the next
// trapezoid on the side stream: (group_depth + 1) / 2, at most group_depth - 1
// (DLA_POTRF_TRAP_HALF_PANELS overrides, with the same bound).
index_t potrf_trap_half_panels(index_t group_depth);
// Whether the look-ahead launches each group's bulk update in two parts, the
// group after next's columns first, so that the next group's trapezoid
// waits only for that part: where the bulk update runs on all SMs
// (side_on_all_sms: potrf_side_sms gives 0, or no green context could be
// made). DLA_POTRF_REST_SPLIT=1 / 0 overrides.
bool potrf_rest_split(bool side_on_all_sms);
// The cluster size of spotrf's critical-path update on the tensor cores
// (the next block column or the next group's trapezoid: each 64 x 64 tile
// on a cluster of that many CTAs that split k, potrf_update_cluster.cuh) for
// an update of `tiles` tiles on or below the diagonal, on a device of
// sm_count SMs: 4 while tiles <= sm_count / 2, else 0 (one CTA per tile).
// DLA_POTRF_CRIT_CLUSTER=0 / 2 / 4 sets the size, DLA_POTRF_CRIT_CLUSTER_TILES
// the bound.
int potrf_crit_cluster(index_t tiles, index_t sm_count);
// Whether spotrf's (single = true) or dpotrf's trailing updates run on the
// tensor cores of the current device: spotrf's in the solvers' FP32 mode
// (solver_fp32_gemm() == Fp32Gemm::Tf32x3, gemm_cuda.hpp), dpotrf's where
// dgemm takes its FP64 tensor-core kernels (dgemm_auto_choice: compute
// capability 9.0+, unless DLA_DGEMM=simt). The tensor_cores of the rules above.
bool potrf_tensor_core_updates(bool single);

int spotrf(stream_t stream, Uplo uplo, index_t n, float* A, index_t lda, int* info,
           void* workspace, std::size_t workspace_bytes = 0);
int dpotrf(stream_t stream, Uplo uplo, index_t n, double* A, index_t lda, int* info,
           void* workspace, std::size_t workspace_bytes = 0);

// Solves A X = B with the factor from s/dpotrf (B is n x nrhs, overwritten by
// X). Returns 0 or -i (uplo = 1, n = 2, nrhs = 3, A = 4, lda = 5, B = 6,
// ldb = 7). Asynchronous.
int spotrs(stream_t stream, Uplo uplo, index_t n, index_t nrhs, const float* A, index_t lda,
           float* B, index_t ldb);
int dpotrs(stream_t stream, Uplo uplo, index_t n, index_t nrhs, const double* A, index_t lda,
           double* B, index_t ldb);

// potrf then potrs. When *info > 0 after the call, B's contents are
// unspecified. `workspace`, `workspace_bytes`: as for spotrf. Returns 0 or -i
// (uplo = 1, n = 2, nrhs = 3, A = 4, lda = 5, B = 6, ldb = 7, info = 8,
// workspace = 9).
int sposv(stream_t stream, Uplo uplo, index_t n, index_t nrhs, float* A, index_t lda, float* B,
          index_t ldb, int* info, void* workspace, std::size_t workspace_bytes = 0);
int dposv(stream_t stream, Uplo uplo, index_t n, index_t nrhs, double* A, index_t lda, double* B,
          index_t ldb, int* info, void* workspace, std::size_t workspace_bytes = 0);

}  // namespace dla::cuda
