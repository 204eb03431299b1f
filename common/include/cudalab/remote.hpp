// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file remote.hpp
 * @brief The lab's host code in a process of its own: a grader calls the lab's functions by
 * name in a *candidate* process and gets back data, never code.
 *
 * A grader that is a judge (CMake: a lab with tests/labNN_topic/remote.cpp) does not link the
 * lab's library. That file defines each function of the lab's header twice over one macro:
 * - in the grader (CUDALAB_REMOTE_JUDGE=1) as a proxy that sends its arguments to the candidate
 *   and returns what comes back: the result, the exception the lab's code threw (same type,
 *   same message), and, for a launcher (a function that takes a cudaStream_t), the work it
 *   enqueued, which the grader replays from its own load of the lab's device code;
 * - in the candidate (CUDALAB_REMOTE_JUDGE=0) as an entry of the table its server answers from.
 *
 * What crosses is data: arithmetic values, enums, trivially copyable structs (device pointers
 * travel as values: the grader allocated them), strings, vectors and arrays of these, and
 * cudalab::KernelInfo by the kernel's name. Nothing the candidate sends is a verdict.
 */
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudalab/device_buffer.cuh"
#include "cudalab/launch_checks.hpp"

namespace cudalab::remote {

/// The candidate process broke the protocol, ended, or did not answer in time.
class CandidateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bytes of a message being built.
class Writer {
 public:
  void raw(const void* p, std::size_t n) { buf_.append(static_cast<const char*>(p), n); }
  template <typename T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "only trivially copyable values travel");
    raw(&v, sizeof(T));
  }
  void str(const std::string& s) {
    pod(static_cast<std::uint64_t>(s.size()));
    raw(s.data(), s.size());
  }
  const std::string& bytes() const noexcept { return buf_; }

 private:
  std::string buf_;
};

/// Reads a received message; every read is bounds-checked (a short message is a CandidateError).
class Reader {
 public:
  explicit Reader(const std::string& bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  void raw(void* out, std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) {
      throw CandidateError("a message from the lab's process ended early");
    }
    std::memcpy(out, p_, n);
    p_ += n;
  }
  template <typename T>
  T pod() {
    static_assert(std::is_trivially_copyable_v<T>, "only trivially copyable values travel");
    T v;
    raw(&v, sizeof(T));
    return v;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(end_ - p_)) {
      throw CandidateError("a message from the lab's process ended early");
    }
    std::string s(p_, static_cast<std::size_t>(n));
    p_ += n;
    return s;
  }
  std::size_t left() const noexcept { return static_cast<std::size_t>(end_ - p_); }

 private:
  const char* p_;
  const char* end_;
};

/// Candidate side: the mangled name of the `__global__` function @p function ("" if none).
std::string kernel_symbol(const void* function);
/// Judge side: the grader's handle of the lab's kernel @p symbol, loaded from the lab's own
/// device code (nullptr for ""); throws std::runtime_error when the lab has no such kernel.
const void* judge_kernel(const std::string& symbol);
/// Judge side: a copy of @p s that lives as long as the process (KernelInfo::name).
const char* intern(const std::string& s);

/// How a value of type T travels (T without reference or cv-qualifiers).
template <typename T, typename = void>
struct Codec {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>,
                "this type cannot be sent to or from the lab's process");
  static void put(Writer& w, const T& v) { w.pod(v); }
  static T get(Reader& r) { return r.pod<T>(); }
};
/// Pointers are the grader's device addresses: they travel as values.
template <typename T>
struct Codec<T*, std::enable_if_t<!std::is_same_v<std::remove_cv_t<T>, char>>> {
  static void put(Writer& w, T* p) { w.pod(reinterpret_cast<std::uintptr_t>(p)); }
  static T* get(Reader& r) { return reinterpret_cast<T*>(r.pod<std::uintptr_t>()); }
};
template <>
struct Codec<std::string> {
  static void put(Writer& w, const std::string& s) { w.str(s); }
  static std::string get(Reader& r) { return r.str(); }
};
/// A C string a lab function returns (a reason, a name) travels as its characters; the grader
/// keeps a copy for the life of the process (nullptr stays nullptr).
template <>
struct Codec<const char*> {
  static void put(Writer& w, const char* s) {
    w.pod(static_cast<std::uint8_t>(s != nullptr));
    w.str(s != nullptr ? s : "");
  }
  static const char* get(Reader& r) {
    const bool present = r.pod<std::uint8_t>() != 0;
    const std::string s = r.str();
    return present ? intern(s) : nullptr;
  }
};
template <typename T>
struct Codec<std::vector<T>> {
  static void put(Writer& w, const std::vector<T>& v) {
    w.pod(static_cast<std::uint64_t>(v.size()));
    for (const T& x : v) Codec<T>::put(w, x);
  }
  static std::vector<T> get(Reader& r) {
    const auto n = r.pod<std::uint64_t>();
    if (n > r.left()) throw CandidateError("a message from the lab's process is malformed");
    std::vector<T> v;
    v.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n; ++i) v.push_back(Codec<T>::get(r));
    return v;
  }
};
template <typename T, std::size_t N>
struct Codec<std::array<T, N>, std::enable_if_t<!std::is_trivially_copyable_v<T>>> {
  static void put(Writer& w, const std::array<T, N>& a) {
    for (const T& x : a) Codec<T>::put(w, x);
  }
  static std::array<T, N> get(Reader& r) {
    std::array<T, N> a{};
    for (T& x : a) x = Codec<T>::get(r);
    return a;
  }
};
/// A device buffer the lab's code filled travels as its contents: the grader allocates its own
/// and uploads them (the lab's process has its own device memory).
template <typename T>
struct Codec<DeviceBuffer<T>> {
  static void put(Writer& w, const DeviceBuffer<T>& b) {
    Codec<std::vector<T>>::put(w, b.to_host());
  }
  static DeviceBuffer<T> get(Reader& r) { return DeviceBuffer<T>(Codec<std::vector<T>>::get(r)); }
};
/// A kernel travels by its mangled name; the grader answers with its own handle for it.
template <>
struct Codec<KernelInfo> {
  static void put(Writer& w, const KernelInfo& k) {
    w.str(kernel_symbol(k.function));
    w.str(k.name != nullptr ? k.name : "");
    w.pod(k.block);
    w.pod(static_cast<std::uint64_t>(k.dynamic_smem));
  }
  static KernelInfo get(Reader& r) {
    KernelInfo k;
    const std::string symbol = r.str();
    k.name = intern(r.str());
    k.block = r.pod<dim3>();
    k.dynamic_smem = static_cast<std::size_t>(r.pod<std::uint64_t>());
    k.function = judge_kernel(symbol);
    return k;
  }
};

/// What a parameter of type P is held as while a call is decoded (a `const char*` as a string).
template <typename P>
using Held = std::conditional_t<std::is_same_v<std::decay_t<P>, const char*>, std::string,
                                std::remove_cv_t<std::remove_reference_t<P>>>;

template <typename P>
inline constexpr bool is_stream_v = std::is_same_v<std::decay_t<P>, cudaStream_t>;

/// Sends one argument; a stream is not sent (the candidate captures on its own).
template <typename P, typename A>
void put_arg(Writer& w, A&& a) {
  static_assert(!std::is_lvalue_reference_v<P> || std::is_const_v<std::remove_reference_t<P>>,
                "a lab function with an output parameter cannot run in the lab's process");
  if constexpr (is_stream_v<P>) {
    (void)a;
  } else if constexpr (std::is_same_v<std::decay_t<P>, const char*>) {
    Codec<std::string>::put(w, a != nullptr ? std::string(a) : std::string());
  } else {
    Codec<Held<P>>::put(w, a);
  }
}

template <typename P>
Held<P> get_arg(Reader& r, cudaStream_t stream) {
  if constexpr (is_stream_v<P>) {
    return stream;
  } else {
    return Codec<Held<P>>::get(r);
  }
}

template <typename P>
decltype(auto) pass(Held<P>& held) {
  if constexpr (std::is_same_v<std::decay_t<P>, const char*>) {
    return static_cast<const char*>(held.c_str());
  } else {
    return static_cast<Held<P>&>(held);
  }
}

template <typename F>
struct Signature;
template <typename R, typename... P>
struct Signature<R (*)(P...)> {
  using Result = R;
  using Params = std::tuple<P...>;
  static constexpr bool launcher = (is_stream_v<P> || ...);
};

// ---------------------------------------------------------------------------
// Judge side (the grader)
// ---------------------------------------------------------------------------

/// Judge side: puts every kernel of the lab's process back to the driver's defaults (dynamic
/// shared-memory limit, carve-out, cache preference) without restarting it, so that the lab's
/// own static state stays (cudalab::kit::FreshKernelState); nothing when not judging.
void reset_candidate_kernels();
/// The name of the call that does it in the candidate.
inline constexpr const char* kResetKernels = "cudalab::remote::reset_kernels";

/// Judge side: the mangled name of @p kernel, a handle of the grader's (a lab kernel from
/// judge_kernel(), or a given kernel compiled into the grader); "" for nullptr. Throws
/// std::invalid_argument for a pointer that is not a kernel.
std::string judge_kernel_symbol(const void* kernel);
/// Judge side: gives the grader's @p kernel the function attributes (the dynamic shared-memory
/// limit and the carve-out preference) that the lab's process now holds for the same kernel, so
/// a lesson that is a host-side call (an opt-in, a carve-out) is read back from the grader's own
/// handle; nothing for nullptr or when not judging.
void mirror_kernel_attributes(const void* kernel);
/// The name of the call that reads a kernel's attributes in the candidate.
inline constexpr const char* kKernelAttributes = "cudalab::remote::kernel_attributes";

/// Judge side: starts the lab's process now and lets it create its CUDA context while the
/// grader prepares the test (its own context, the inputs), without waiting for it; the first
/// call collects its answer. For a process whose gtest filter runs a Gpu or Perf suite (the
/// judge starts one per test or batch); nothing when not judging or under a tool (a Sanitizer or
/// Profiler test's re-run). A failure to start shows at the first call, as before.
void prewarm_candidate(const std::string& gtest_filter);
/// The name of the call that creates the candidate's CUDA context ahead of the first call.
inline constexpr const char* kWarm = "cudalab::remote::warm";

/// Judge side: whether this grader judges a lab from outside its process (cudalab_remote_lab_path,
/// generated by CMake).
bool judging() noexcept;
/// Judge side: the files of the lab's device code (empty when not judging): SASS checks read
/// them, since the lab's kernels are not in the grader's executable.
std::vector<std::string> device_code_files();
/// Judge side: the grader's handle of the lab kernel that a captured graph node names by
/// @p handle (its CUkernel, or the CUfunction of the current context), or nullptr.
const void* judge_kernel_of_handle(const void* handle);

/**
 * @brief Sends @p request to the candidate process (started on first use) and returns the
 * payload of its answer. Rethrows an exception the lab's code threw as the same standard type
 * (std::invalid_argument, std::out_of_range, std::runtime_error, cudalab::CudaError...)
 * with its message; throws CandidateError when the process ended, hung or broke the protocol.
 */
std::string round_trip(const std::string& function, const std::string& request);

/// Enqueues the captured work in @p reader on @p stream, from the grader's own load of the
/// lab's kernels; throws std::runtime_error for a kernel or a node the lab may not use.
void replay(Reader& reader, cudaStream_t stream, const char* function);

template <typename Params, typename Args, std::size_t... I>
void put_args(Writer& w, cudaStream_t& stream, Args&& args, std::index_sequence<I...>) {
  (
      [&] {
        using P = std::tuple_element_t<I, Params>;
        auto&& a = std::get<I>(args);
        if constexpr (is_stream_v<P>) stream = a;
        put_arg<P>(w, a);
      }(),
      ...);
}

/// The proxy's body for a function of type Fn: `CallOf<Fn>{"lab::f"}(args...)` sends the
/// arguments, replays a launcher's work on the caller's stream, and returns the result.
template <typename Fn>
struct CallOf {
  const char* function;
  template <typename... A>
  typename Signature<Fn>::Result operator()(A&&... args) const {
    using Sig = Signature<Fn>;
    using R = typename Sig::Result;
    using Params = typename Sig::Params;
    static_assert(sizeof...(A) == std::tuple_size_v<Params>, "proxy arguments must match");
    Writer w;
    cudaStream_t stream = nullptr;
    put_args<Params>(w, stream, std::forward_as_tuple(args...),
                     std::make_index_sequence<sizeof...(A)>{});
    const std::string answer = round_trip(function, w.bytes());
    Reader r(answer);
    if constexpr (Sig::launcher) replay(r, stream, function);
    if constexpr (!std::is_void_v<R>) {
      return Codec<std::remove_cv_t<std::remove_reference_t<R>>>::get(r);
    }
  }
};
/// `call<&lab::f>("lab::f")(args...)`: the proxy's body for the function F.
template <auto F>
CallOf<decltype(F)> call(const char* function) {
  return CallOf<decltype(F)>{function};
}

// ---------------------------------------------------------------------------
// Candidate side (the lab's process)
// ---------------------------------------------------------------------------

/// Answers one call: reads the arguments from the reader, writes the reply.
using Handler = void (*)(Reader&, Writer&);

/// Candidate side: this process's host function of the kernel @p symbol (nullptr for "");
/// throws std::invalid_argument when no kernel of the lab has that name.
const void* candidate_kernel(const std::string& symbol);

/// Candidate side: runs @p call under stream capture on the candidate's capture stream and
/// writes the captured work into @p w (kernel names, launch shapes, parameter bytes, memsets).
void capture_into(Writer& w, void (*call)(void*, cudaStream_t), void* context);

/// Candidate side: device memory of the lab's process that the grader holds a copy of:
/// [candidate, candidate + bytes) here is [judge, judge + bytes) in the grader.
struct AddressRange {
  std::uintptr_t candidate = 0;
  std::size_t bytes = 0;
  std::uintptr_t judge = 0;
};
/// Candidate side: the ranges capture_into() translates until the next call (an empty list,
/// the default, translates nothing). A captured kernel's 8-byte parameter, a memset's
/// destination and a copy's source and destination that fall inside a range go to the grader
/// as the same offset from the range's judge address, so the grader replays the work on its
/// copies (a lab object that allocates in the lab's process, lab 03's PitchedMatrix).
void set_address_map(std::vector<AddressRange> ranges);

template <typename R>
using Value = std::remove_cv_t<std::remove_reference_t<R>>;

template <auto F, typename Held, std::size_t... I>
decltype(auto) invoke_held(Held& held, std::index_sequence<I...>) {
  using Params = typename Signature<decltype(F)>::Params;
  return F(pass<std::tuple_element_t<I, Params>>(std::get<I>(held))...);
}

template <typename Params, typename Held, std::size_t... I>
void set_stream(Held& held, cudaStream_t s, std::index_sequence<I...>) {
  (
      [&] {
        if constexpr (is_stream_v<std::tuple_element_t<I, Params>>) std::get<I>(held) = s;
      }(),
      ...);
}

template <typename Params, std::size_t... I>
auto get_args(Reader& r, std::index_sequence<I...>) {
  // A braced list is evaluated left to right: the arguments are decoded in order.
  return std::tuple<Held<std::tuple_element_t<I, Params>>...>{
      get_arg<std::tuple_element_t<I, Params>>(r, nullptr)...};
}

/// Candidate side: decodes the arguments, calls the lab's function F (a launcher under
/// capture) and writes the captured work, then the result.
template <auto F>
void serve(Reader& r, Writer& w) {
  using Sig = Signature<decltype(F)>;
  using R = typename Sig::Result;
  using Params = typename Sig::Params;
  using Seq = std::make_index_sequence<std::tuple_size_v<Params>>;
  auto held = get_args<Params>(r, Seq{});
  if constexpr (Sig::launcher) {
    struct Ctx {
      decltype(held)* h;
      std::conditional_t<std::is_void_v<R>, char, Value<R>> result{};
    } ctx{&held};
    capture_into(
        w,
        [](void* c, cudaStream_t s) {
          Ctx& x = *static_cast<Ctx*>(c);
          set_stream<Params>(*x.h, s, Seq{});
          if constexpr (std::is_void_v<R>) {
            invoke_held<F>(*x.h, Seq{});
          } else {
            x.result = invoke_held<F>(*x.h, Seq{});
          }
        },
        &ctx);
    if constexpr (!std::is_void_v<R>) Codec<Value<R>>::put(w, ctx.result);
  } else if constexpr (std::is_void_v<R>) {
    invoke_held<F>(held, Seq{});
  } else {
    Codec<Value<R>>::put(w, invoke_held<F>(held, Seq{}));
  }
}

/// Adds a function to the candidate's table (one static object per CUDALAB_REMOTE line).
struct Registrar {
  Registrar(const char* function, Handler handler);
};

}  // namespace cudalab::remote

#define CUDALAB_REMOTE_CAT2(a, b) a##b
#define CUDALAB_REMOTE_CAT(a, b) CUDALAB_REMOTE_CAT2(a, b)

/**
 * @brief One function of a lab's header, served by the candidate: `CUDALAB_REMOTE(
 * lab05::bank_of, (std::uint64_t address), (address), int)` (the return type last: it may
 * hold commas). In the grader (CUDALAB_REMOTE_JUDGE=1)
 * this defines the function as a proxy; in the candidate it registers the real one.
 */
#define CUDALAB_REMOTE(fn, params, args, ...) CUDALAB_REMOTE_AS(#fn, fn, params, args, __VA_ARGS__)

/// CUDALAB_REMOTE under the name @p name (a string literal): one of overloads of the same name
/// gets a name of its own, e.g. `CUDALAB_REMOTE_AS("lab13::stream_k_workspace_bytes(m,n,k)", ...)`.
// The candidate names the function by a constant of its exact type (which picks one of overloads).
#if defined(CUDALAB_REMOTE_JUDGE) && CUDALAB_REMOTE_JUDGE
#define CUDALAB_REMOTE_AS(name, fn, params, args, ...)                  \
  __VA_ARGS__ fn params {                                               \
    return ::cudalab::remote::CallOf<__VA_ARGS__(*) params>{name} args; \
  }
#else
#define CUDALAB_REMOTE_AS(name, fn, params, args, ...)                                     \
  CUDALAB_REMOTE_AS_ID(CUDALAB_REMOTE_CAT(cudalab_remote_, __COUNTER__), name, fn, params, \
                       __VA_ARGS__)
#define CUDALAB_REMOTE_AS_ID(id, name, fn, params, ...)                    \
  static constexpr __VA_ARGS__(*CUDALAB_REMOTE_CAT(id, _fn)) params = &fn; \
  static const ::cudalab::remote::Registrar id{                            \
      name, &::cudalab::remote::serve<CUDALAB_REMOTE_CAT(id, _fn)>};
#endif
