#pragma once
// Streams whose kernels run on a part of the GPU's SMs only (CUDA green
// contexts: compute capability 9.0 and a 12.4+ driver). The Cholesky
// look-ahead runs its bulk trailing update on one, so that the critical-path
// kernels always find SMs that no update block holds (docs/cholesky-log.md,
// session 21).
#include <cuda_runtime.h>

namespace dla::cuda::detail {

// A stream of the calling host thread on the current device whose kernels run
// on at least `sms` SMs (the driver rounds up to its granularity, 8 on the
// H200) and on no others, created on first use and kept (one green context
// per device and size for the process, one stream per host thread). nullptr
// where the driver cannot make that partition: callers then use an ordinary
// stream. Same priority as an ordinary stream; non-blocking.
cudaStream_t sm_partition_stream(int sms);

}  // namespace dla::cuda::detail
