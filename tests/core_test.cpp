// Core: errors, views, Context selection, device info, DeviceMatrix round trips.
#include <gtest/gtest.h>

#include "dla/core.hpp"
#include "test_util.hpp"

#include <utility>
#include <vector>

namespace {
using dla::test::Mat;

TEST(CoreErrors, HierarchyDerivesFromError) {
  EXPECT_THROW(throw dla::DimensionMismatch("x"), dla::InvalidArgument);
  EXPECT_THROW(throw dla::OutOfDeviceMemory("x"), dla::DeviceError);
  EXPECT_THROW(throw dla::NotCompiled("x"), dla::Error);
  try {
    throw dla::SingularMatrix(7, "pivot 7 is zero");
  } catch (const dla::Error& e) {
    EXPECT_EQ(dynamic_cast<const dla::SingularMatrix&>(e).index(), 7);
  }
  try {
    dla::throw_bad_argument("sgemm", -4);
    FAIL() << "throw_bad_argument returned";
  } catch (const dla::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("argument 4"), std::string::npos) << e.what();
  }
}

TEST(CoreViews, BlockAddressesColumnMajorWithLeadingDimension) {
  std::vector<float> buf(10 * 4);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = float(i);
  dla::HostView<float> v(buf.data(), 7, 4, 10);
  EXPECT_EQ(*v.ptr(3, 2), 23.0f);
  auto b = v.block(2, 1, 3, 2);
  EXPECT_EQ(b.ld, 10);
  EXPECT_EQ(*b.ptr(0, 0), 12.0f);
  EXPECT_EQ(*b.ptr(2, 1), 24.0f);
  dla::HostView<const float> c = b;  // const conversion
  EXPECT_EQ(*c.ptr(1, 1), 23.0f);
  // Index arithmetic is 64-bit: a 50000 x 50000 offset does not overflow.
  dla::HostView<float> big(nullptr, 50000, 50000, 50000);
  EXPECT_EQ(big.ptr(49999, 49999) - big.data, std::int64_t(49999) * 50000 + 49999);
}

TEST(CoreViews, EigenMapSeesTheSameElements) {
  Mat<double> m = dla::test::random_matrix<double>(5, 3, 1);
  auto v = dla::host_view(m);
  auto map = dla::eigen_map(v.block(1, 1, 3, 2));
  EXPECT_EQ(map(2, 1), m(3, 2));
}

// A Batch whose count x rows x cols does not fit a 64-bit index: refused.
// The size_t product used to wrap (2^22 x 2^21 x 2^21 = 2^64 -> 0), leaving
// count() = 4194304 over empty storage that operator[] then wrote past.
TEST(CoreBatch, SizeOverflowThrowsInvalidArgument) {
  const dla::index_t big = dla::index_t(1) << 21;
  EXPECT_THROW(dla::Batch<float>(dla::index_t(1) << 22, big, big), dla::InvalidArgument);
  EXPECT_THROW(dla::Batch<float>(dla::index_t(1) << 40, dla::index_t(1) << 40, 1),
               dla::InvalidArgument);
  EXPECT_THROW(dla::Batch<float>(0, dla::index_t(1) << 40, dla::index_t(1) << 40),
               dla::InvalidArgument);  // stride() would overflow
  // Empty batches are fine.
  dla::Batch<float> none(0, 3, 3), flat(5, 0, 0);
  EXPECT_EQ(none.count(), 0);
  EXPECT_EQ(none.stride(), 9);
  EXPECT_EQ(flat.count(), 5);
  EXPECT_EQ(flat[4].size(), 0);
}

TEST(CoreContext, HostBackendAlwaysWorks) {
  dla::Context ctx(dla::Backend::Host);
  EXPECT_EQ(ctx.backend(), dla::Backend::Host);
  EXPECT_FALSE(ctx.is_cuda());
  EXPECT_EQ(ctx.stream(), nullptr);
  EXPECT_EQ(ctx.device(), -1);
  ctx.synchronize();  // no-op, must not throw
}

TEST(CoreContext, AutoPicksCudaExactlyWhenADeviceExists) {
  dla::Context ctx(dla::Backend::Auto);
  const bool gpu = dla::cuda_compiled() && dla::device_count() > 0;
  EXPECT_EQ(ctx.backend(), gpu ? dla::Backend::Cuda : dla::Backend::Host);
}

TEST(CoreContext, CudaRequestWithoutDeviceThrowsClearly) {
  if (dla::cuda_compiled() && dla::device_count() > 0) {
    // With a device: an id past the last one must be refused, naming it.
    try {
      dla::Context ctx(dla::Backend::Cuda, 999);
      FAIL() << "device 999 accepted";
    } catch (const dla::DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("999"), std::string::npos) << e.what();
    }
    return;
  }
  try {
    dla::Context ctx(dla::Backend::Cuda);
    FAIL() << "Cuda backend accepted without a device";
  } catch (const dla::DeviceError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(msg.find("CUDA") != std::string::npos) << msg;
  }
}

TEST(CoreDeviceInfo, CountIsConsistentWithBuild) {
  if (!dla::cuda_compiled()) {
    EXPECT_EQ(dla::device_count(), 0);
    EXPECT_THROW(dla::device_info(0), dla::NotCompiled);
  }
  EXPECT_THROW(dla::device_info(-1), dla::DeviceError);
}

TEST(CoreDeviceInfoGpu, ReportsARealDevice) {
  DLA_REQUIRE_GPU();
  auto d = dla::device_info(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.total_memory, std::size_t(1) << 30);
  EXPECT_GE(d.cc_major, 7);
  EXPECT_GT(d.shared_memory_per_block_optin, 48u * 1024u - 1u);
  std::printf("device 0: %s, %d SMs, cc %d.%d, %.1f GiB, smem/block opt-in %zu KiB, L2 %zu MiB\n",
              d.name.c_str(), d.sm_count, d.cc_major, d.cc_minor,
              double(d.total_memory) / (1 << 30), d.shared_memory_per_block_optin / 1024,
              d.l2_cache >> 20);
}

TEST(CoreDeviceMatrixGpu, RoundTripRandomDataAnyLeadingDimension) {
  DLA_REQUIRE_GPU();
  dla::Context ctx(dla::Backend::Cuda);
  for (auto [r, c] : {std::pair{1, 1}, {17, 3}, {1000, 127}, {3, 1000}}) {
    Mat<float> h = dla::test::random_matrix<float>(r, c, 42 + r);
    dla::DeviceMatrix<float> d(h, ctx.stream());
    Mat<float> back = d.to_host(ctx.stream());
    EXPECT_EQ(back, h) << r << "x" << c;
    // Padded leading dimension: upload into ld = r + 5, download into a poisoned buffer.
    dla::DeviceMatrix<float> p(r, c, r + 5);
    p.upload(dla::host_view(h), ctx.stream());
    Mat<float> out = Mat<float>::Constant(r, c, dla::test::quiet_nan<float>());
    p.download(dla::host_view(out), ctx.stream());
    EXPECT_EQ(out, h);
  }
  Mat<double> hd = dla::test::random_matrix<double>(33, 65, 9);
  dla::DeviceMatrix<double> dd(hd);
  EXPECT_EQ(dd.to_host(), hd);
}

TEST(CoreDeviceMatrixGpu, ShapeMismatchAndWorkspace) {
  DLA_REQUIRE_GPU();
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceMatrix<float> d(4, 5);
  Mat<float> wrong(5, 4);
  EXPECT_THROW(d.upload(dla::host_view(std::as_const(wrong))), dla::DimensionMismatch);
  void* w1 = ctx.workspace(1024);
  EXPECT_NE(w1, nullptr);
  EXPECT_EQ(ctx.workspace(512), w1);  // reused, not shrunk
  ctx.workspace(1 << 20);
  EXPECT_GE(ctx.workspace_size(), std::size_t(1) << 20);
  dla::Context copy = ctx;  // copies share stream and workspace
  EXPECT_EQ(copy.stream(), ctx.stream());
}

// Bad shapes are refused before any device memory is asked for, so this
// runs in every build, with or without a GPU. Before the check,
// DeviceMatrix(4, 4, 2) allocated 8 elements and its view claimed 4 x 4 with
// ld 2 (columns overlapping), and DeviceBuffer(-1) was an empty buffer of
// size -1.
TEST(CoreDeviceMatrix, BadShapesThrowInvalidArgument) {
  using dla::DeviceMatrix;
  using dla::index_t;
  const index_t big = index_t(1) << 62;
  auto refused = [](auto make, const char* what, const char* expect) {
    try {
      make();
      ADD_FAILURE() << what << ": nothing thrown";
    } catch (const dla::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << what << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": not InvalidArgument: " << e.what();
    }
  };
  refused([] { DeviceMatrix<float>(4, 4, 2); }, "ld < rows", "leading dimension 2");
  refused([] { DeviceMatrix<float>(4, 4, -3); }, "negative ld", "leading dimension -3");
  refused([] { DeviceMatrix<float>(-1, 4); }, "negative rows", "-1 x 4");
  refused([] { DeviceMatrix<double>(4, -2); }, "negative cols", "4 x -2");
  refused([big] { DeviceMatrix<float>(big, 8); }, "ld * cols overflows", "overflow");
  refused([big] { DeviceMatrix<double>(big / 4, 2); }, "bytes overflow", "overflow");
  refused([] { dla::DeviceBuffer<float>(-1); }, "negative count", "-1");
  refused([big] { dla::DeviceBuffer<double> b(big); }, "count * 8 bytes overflows", "overflow");
}

TEST(CoreDeviceMatrix, WithoutCudaConstructionThrowsNotCompiled) {
  if (dla::cuda_compiled()) GTEST_SKIP() << "CUDA build: covered by the GPU tests";
  EXPECT_THROW(dla::DeviceMatrix<float>(4, 4), dla::NotCompiled);
}

}  // namespace
