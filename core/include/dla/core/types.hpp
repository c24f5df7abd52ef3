#pragma once
// Small vocabulary types shared by every component.
#include <cstdint>

namespace dla {

using index_t = std::int64_t;  // sizes, leading dimensions, offsets: never int

enum class Op : char { N = 'N', T = 'T' };             // op(A) = A or A^T
enum class Uplo : char { Lower = 'L', Upper = 'U' };
enum class Side : char { Left = 'L', Right = 'R' };
enum class Diag : char { NonUnit = 'N', Unit = 'U' };

// Whether a value is one of its enum's named ones (not a cast from another
// char): the entry points refuse the others instead of taking them as the
// "else" branch.
constexpr bool is_valid(Op v) { return v == Op::N || v == Op::T; }
constexpr bool is_valid(Uplo v) { return v == Uplo::Lower || v == Uplo::Upper; }
constexpr bool is_valid(Side v) { return v == Side::Left || v == Side::Right; }
constexpr bool is_valid(Diag v) { return v == Diag::NonUnit || v == Diag::Unit; }

// Where work runs. Auto resolves to Cuda when a usable device exists, else Host.
enum class Backend { Auto, Cuda, Host };

const char* to_string(Backend b);
const char* to_string(Op op);

}  // namespace dla

// CUDA's stream type, declared without pulling in cuda_runtime.h, so the public
// headers compile in builds without CUDA. Identical to cudaStream_t.
struct CUstream_st;
namespace dla {
using stream_t = CUstream_st*;
}
