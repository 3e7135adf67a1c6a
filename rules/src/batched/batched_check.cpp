// Check mode: the batched loop's results against the loop as written's (Note [Check mode]
// in batched.hpp).
#include <vmap/batched.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace vmap::batched {
namespace {

bool is_floating(Dtype dtype) { return dtype == kFloat32 || dtype == kFloat64; }

// SPEC section 2's tolerance, as the differential tests apply it.
bool floats_agree(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= 1e-4 * std::max(std::fabs(a), std::fabs(b)) + 1e-6;
}

std::string describe_site(const CheckSite& site) {
  return std::string("clang-vmap --check: ") + site.file + ":" + std::to_string(site.line) +
         ": " + (site.accumulator ? "accumulator '" : "output '") + site.name + "'";
}

std::string list(const std::vector<int64_t>& values) {
  std::ostringstream out;
  out << '[';
  for (std::size_t k = 0; k < values.size(); ++k) out << (k ? ", " : "") << values[k];
  out << ']';
  return out.str();
}

std::string number(double value, Dtype dtype) {
  std::ostringstream out;
  out.precision(dtype == kFloat32 ? 9 : 17);
  out << value;
  return out.str();
}

[[noreturn]] void differs(const CheckSite& site, const std::string& where,
                          const std::string& batched, const std::string& as_written) {
  throw Error(describe_site(site) + " differs" + where + ": batched " + batched +
              ", as written " + as_written);
}

// " at example 3, element [3, 1]" for element `flat` of a tensor of these sizes.
std::string position(const CheckSite& site, const std::vector<int64_t>& sizes, int64_t flat) {
  if (sizes.empty()) return "";
  std::vector<int64_t> index(sizes.size());
  for (std::size_t k = sizes.size(); k-- > 0;) {
    index[k] = flat % sizes[k];
    flat /= sizes[k];
  }
  const auto examples = static_cast<std::size_t>(std::clamp<int64_t>(
      site.example_dims, 0, static_cast<int64_t>(index.size())));
  std::string where;
  if (examples == 1) where = " at example " + std::to_string(index[0]) + ",";
  if (examples > 1)
    where = " at example " + list({index.begin(), index.begin() + static_cast<long>(examples)}) +
            ",";
  return (where.empty() ? " at" : where) + " element " + list(index);
}

}  // namespace

void check_equal(const Tensor& batched, const Tensor& as_written, const CheckSite& site) {
  if (batched.defined() != as_written.defined())
    throw Error(describe_site(site) + " is " +
                (batched.defined() ? "defined batched, undefined as written"
                                   : "undefined batched, defined as written"));
  if (!batched.defined()) return;
  if (batched.dtype() != as_written.dtype()) {
    std::ostringstream out;
    out << describe_site(site) << " has dtype " << batched.dtype() << " batched, "
        << as_written.dtype() << " as written";
    throw Error(out.str());
  }
  const std::vector<int64_t> sizes(batched.sizes().begin(), batched.sizes().end());
  const std::vector<int64_t> written_sizes(as_written.sizes().begin(), as_written.sizes().end());
  if (sizes != written_sizes)
    throw Error(describe_site(site) + " has shape " + list(sizes) + " batched, " +
                list(written_sizes) + " as written");
  const Dtype dtype = batched.dtype();
  if (is_floating(dtype)) {
    const Tensor a = batched.to(kCPU).to(kFloat64).contiguous();
    const Tensor b = as_written.to(kCPU).to(kFloat64).contiguous();
    const double* x = a.data_ptr<double>();
    const double* y = b.data_ptr<double>();
    for (int64_t k = 0; k < a.numel(); ++k)
      if (!floats_agree(x[k], y[k]))
        differs(site, position(site, sizes, k), number(x[k], dtype), number(y[k], dtype));
    return;
  }
  const Tensor a = batched.to(kCPU).to(kInt64).contiguous();
  const Tensor b = as_written.to(kCPU).to(kInt64).contiguous();
  const int64_t* x = a.data_ptr<int64_t>();
  const int64_t* y = b.data_ptr<int64_t>();
  for (int64_t k = 0; k < a.numel(); ++k)
    if (x[k] != y[k])
      differs(site, position(site, sizes, k), std::to_string(x[k]), std::to_string(y[k]));
}

void check_equal(vmap::detail::Scalar batched, vmap::detail::Scalar as_written,
                 const CheckSite& site) {
  const auto text = [](vmap::detail::Scalar value) {
    std::ostringstream out;
    out.precision(17);
    out << value;
    return out.str();
  };
  const bool agree = batched.is_floating() || as_written.is_floating()
                         ? floats_agree(batched.to_double(), as_written.to_double())
                         : batched.to_int64() == as_written.to_int64();
  if (!agree) differs(site, "", text(batched), text(as_written));
}

void check_threw(const std::exception& error, const char* file, int line) {
  throw Error(std::string("clang-vmap --check: ") + file + ":" + std::to_string(line) +
              ": the batched loop threw where the loop as written did not: " + error.what());
}

CheckedOutput<Tensor>::CheckedOutput(const Tensor& tensor)
    : handle_(tensor), before_(tensor.defined() ? tensor.clone() : Tensor()) {}

void CheckedOutput<Tensor>::ran_as_written(const Tensor& tensor) {
  as_written_ = tensor.defined() ? tensor.clone() : Tensor();
}

void CheckedOutput<Tensor>::put_back(const Tensor& /*tensor*/) const {
  if (!handle_.defined()) return;
  // An expanded output (a stride 0) holds one location for many elements, all equal in
  // before_: put back through one index of each such dim (copy_ refuses the whole view).
  Tensor destination = handle_, source = before_;
  for (int64_t d = destination.dim() - 1; d >= 0; --d)
    if (destination.stride(d) == 0 && destination.size(d) > 1) {
      destination = destination.select(d, 0);
      source = source.select(d, 0);
    }
  destination.copy_(source);
}

void CheckedOutput<Tensor>::put_back(Tensor& tensor) const {
  put_back(static_cast<const Tensor&>(tensor));
  tensor = handle_;  // the loop as written may have rebound it (`acc = maximum(acc, e)`)
}

void CheckedOutput<Tensor>::compare(const Tensor& batched, const CheckSite& site) const {
  check_equal(batched, as_written_, site);
}

}  // namespace vmap::batched
