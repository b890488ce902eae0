// kdt_reduce.h - `sum`, `max` and `min` of tiles on the C++ path (issue 17):
// the order kdt combines elements in, written so that GCC and Clang
// vectorise it.
//
// The order (docs/interpretation.md; the spec fixes none): the n elements
// x[0], x[s], x[2s], ... are dealt to 32 lanes, lane l taking elements
// l, l + 32, l + 64, ... in index order; a lane's first element is its
// start (a sum's lanes are +0 + x[l], so a sum of -0s is +0). The lanes
// present (min(n, 32)) are then combined by halving:
//   for h = 16, 8, 4, 2, 1:  lane[l] = lane[l] op lane[l + h]  for l + h < count
// which is the compiled path's warp reduction (kdt_cu::warp_reduce with lane
// l of a warp holding lane[l]), so a warp-parallel axis reduction on a GPU
// and this one give the same bits. Integer sums wrap, and `max`/`min` are
// associative and commutative, so for them the order changes nothing but
// which NaN a float max/min returns when several are present (any NaN is
// NaN, spec section 3). f16/bf16 elements are combined in f32 (Acc).
#ifndef KDT_RUNTIME_KDT_REDUCE_H
#define KDT_RUNTIME_KDT_REDUCE_H

#include <cstdint>
#include <type_traits>

#include "kdt_numerics.h"

namespace kdt_rt {
namespace reduce_detail {

constexpr int64_t kLanes = 32;

template <class S> struct Acc { using type = S; };
template <> struct Acc<f16> { using type = float; };
template <> struct Acc<bf16> { using type = float; };

template <class S>
inline typename Acc<S>::type widen(S v) {
  if constexpr (std::is_same_v<S, f16> || std::is_same_v<S, bf16>) return to_f32(v);
  else return v;
}

// maximum / minimum (kdt_numerics.h) without branches on the values, so
// that the lane loop below is vectorised: the same results.
struct Sum {
  template <class T> T operator()(T a, T b) const { return op_add(a, b); }
};
// max/min: `exact` is kdt_numerics.h's (NaN-propagating, +0 above -0);
// `fast` agrees with it wherever neither operand is NaN and the two are not
// zeros of different signs, and compiles to one vector instruction.
struct Max {
  template <class T> T exact(T a, T b) const { return maximum(a, b); }
  template <class T> T fast(T a, T b) const { return a < b ? b : a; }
};
struct Min {
  template <class T> T exact(T a, T b) const { return minimum(a, b); }
  template <class T> T fast(T a, T b) const { return b < a ? b : a; }
};

template <class S, class A, class Combine>
inline A reduce_lanes(const S* x, int64_t n, int64_t stride, A start, Combine combine) {
  A lane[kLanes];
  const int64_t count = n < kLanes ? n : kLanes;
  for (int64_t l = 0; l < count; ++l) lane[l] = combine(start, widen(x[l * stride]));
  int64_t j = kLanes;
  if (stride == 1) {
    // The loop the vectoriser sees: lanes side by side, unit stride.
    for (; j + kLanes <= n; j += kLanes) {
      for (int64_t l = 0; l < kLanes; ++l) lane[l] = combine(lane[l], widen(x[j + l]));
    }
  } else {
    for (; j + kLanes <= n; j += kLanes) {
      for (int64_t l = 0; l < kLanes; ++l) lane[l] = combine(lane[l], widen(x[(j + l) * stride]));
    }
  }
  for (int64_t l = 0; j + l < n; ++l) lane[l] = combine(lane[l], widen(x[(j + l) * stride]));
  for (int64_t h = kLanes / 2; h > 0; h /= 2) {
    for (int64_t l = 0; l < h && l + h < count; ++l) lane[l] = combine(lane[l], lane[l + h]);
  }
  return lane[0];
}

template <class Op, class S>
inline typename Acc<S>::type reduce(const S* x, int64_t n, int64_t stride, Op op) {
  using A = typename Acc<S>::type;
  if constexpr (std::is_same_v<Op, Sum>) {
    return reduce_lanes(x, n, stride, A{}, op);
  } else if constexpr (!std::is_floating_point_v<A>) {
    return reduce_lanes(x, n, stride, widen(x[0]), [&](A a, A b) { return op.fast(a, b); });
  } else {
    // Plain comparisons first; where a NaN or a zero result makes them
    // differ from the exact operation (NaN-propagating, +0 above -0), the
    // exact one over every element in index order.
    A r = reduce_lanes(x, n, stride, widen(x[0]), [&](A a, A b) { return op.fast(a, b); });
    if (r != 0) {
      int64_t nans = 0;  // counted, not or-ed: GCC vectorises a sum
      for (int64_t i = 0; i < n; ++i) nans += widen(x[i * stride]) != widen(x[i * stride]);
      if (nans == 0) return r;
    }
    r = widen(x[0]);
    for (int64_t i = 1; i < n; ++i) r = op.exact(r, widen(x[i * stride]));
    return r;
  }
}

}  // namespace reduce_detail

// The reductions emitted code calls: n >= 1 elements x[0], x[stride], ...,
// the result in the accumulator type (f32 for f16/bf16 elements).
template <class S>
inline auto reduce_sum(const S* x, int64_t n, int64_t stride) { return reduce_detail::reduce(x, n, stride, reduce_detail::Sum{}); }
template <class S>
inline auto reduce_max(const S* x, int64_t n, int64_t stride) { return reduce_detail::reduce(x, n, stride, reduce_detail::Max{}); }
template <class S>
inline auto reduce_min(const S* x, int64_t n, int64_t stride) { return reduce_detail::reduce(x, n, stride, reduce_detail::Min{}); }

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_REDUCE_H
