// The size-aware pipelining model: parameters at a size, the fit of schedule_fit's
// samples, and its constants file (see treefold/model/size_model.hpp).
#include "treefold/model/size_model.hpp"
#include "treefold/io/values_file.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace treefold::model {

namespace {

[[noreturn]] void bad_term(const char* what, double value, const char* want)
{
    std::ostringstream os;
    os << "treefold: size model needs " << what << " " << want << ", got " << value;
    throw std::invalid_argument(os.str());
}

bool has_step(const size_params& m) { return m.eager_limit != std::numeric_limits<std::uint64_t>::max(); }

} // namespace

void size_params::check() const
{
    base.check();
    if (!std::isfinite(beta) || beta < 0) {
        bad_term("beta", beta, "finite and >= 0");
    }
    if (!std::isfinite(rendezvous_p)) {
        bad_term("rendezvous_p", rendezvous_p, "finite");
    }
    if (!std::isfinite(rendezvous_r)) {
        bad_term("rendezvous_r", rendezvous_r, "finite");
    }
    if (!std::isfinite(rendezvous_beta) || beta + rendezvous_beta < 0) {
        bad_term("beta + rendezvous_beta", beta + rendezvous_beta, "finite and >= 0");
    }
    // Per-byte terms ≥ 0: the terms are smallest just above the step.
    if (has_step(*this)) {
        const params above = at(eager_limit + 1);
        if (above.alpha_p < 0) {
            bad_term("alpha_p + rendezvous_p", above.alpha_p, ">= 0 above the eager limit");
        }
        if (!(above.alpha_r > 0)) {
            bad_term("alpha_r(n) above the eager limit", above.alpha_r, "> 0");
        }
    }
}

params size_params::at(std::uint64_t bytes) const
{
    params out = base;
    out.alpha_r += beta * static_cast<double>(bytes);
    if (bytes > eager_limit) {
        out.alpha_p += rendezvous_p;
        out.alpha_r += rendezvous_r + rendezvous_beta * static_cast<double>(bytes);
    }
    return out;
}

bool size_params::sized() const { return beta != 0 || has_step(*this); }

double modelled_time(const topology::schedule& s, int p, const size_params& m, std::uint64_t bytes)
{
    return modelled_time(s, p, m.at(bytes));
}

topology::schedule best(int p, const size_params& m, std::uint64_t bytes, const search_space& space)
{
    m.check();
    return best(p, m.at(bytes), space);
}

topology::schedule heuristic(int p, const size_params& m, std::uint64_t bytes)
{
    m.check();
    return heuristic(p, m.at(bytes));
}

namespace {

/// Least squares min |A x − y| over the columns of A (rows × cols, row-major) by modified
/// Gram-Schmidt on columns scaled to unit length (the columns differ by orders of magnitude:
/// bytes against message counts). Returns x and the residual sum of squares, or an empty x
/// when the columns are (numerically) dependent.
std::vector<double> solve_least_squares(std::vector<double> a, std::vector<double> y, std::size_t cols,
                                        double& rss)
{
    const std::size_t rows = y.size();
    auto at = [&](std::size_t r, std::size_t c) -> double& { return a[r * cols + c]; };
    // The dot product of columns i and j, summed in row order.
    auto dot = [&](std::size_t i, std::size_t j) {
        double sum = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            sum += at(r, i) * at(r, j);
        }
        return sum;
    };
    // Column c divided by d.
    auto divide = [&](std::size_t c, double d) {
        for (std::size_t r = 0; r < rows; ++r) {
            at(r, c) /= d;
        }
    };
    std::vector<double> scale(cols, 0.0);
    for (std::size_t c = 0; c < cols; ++c) {
        scale[c] = std::sqrt(dot(c, c));
        if (!(scale[c] > 0)) {
            return {};
        }
        divide(c, scale[c]);
    }
    // A = Q R with R upper triangular; Q overwrites A column by column.
    std::vector<double> rmat(cols * cols, 0.0);
    for (std::size_t c = 0; c < cols; ++c) {
        for (std::size_t k = 0; k < c; ++k) {
            const double d = dot(k, c);
            rmat[k * cols + c] = d;
            for (std::size_t r = 0; r < rows; ++r) {
                at(r, c) -= d * at(r, k);
            }
        }
        const double norm = std::sqrt(dot(c, c));
        if (norm < 1e-10) { // the column is (nearly) a combination of the earlier ones
            return {};
        }
        rmat[c * cols + c] = norm;
        divide(c, norm);
    }
    // x = R^{-1} Qᵀ y, with y reduced in the same order (MGS on the right-hand side).
    std::vector<double> qty(cols, 0.0);
    for (std::size_t c = 0; c < cols; ++c) {
        double dot = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            dot += at(r, c) * y[r];
        }
        qty[c] = dot;
        for (std::size_t r = 0; r < rows; ++r) {
            y[r] -= dot * at(r, c);
        }
    }
    rss = 0;
    for (const double e : y) {
        rss += e * e;
    }
    std::vector<double> x(cols, 0.0);
    for (std::size_t c = cols; c-- > 0;) {
        double v = qty[c];
        for (std::size_t k = c + 1; k < cols; ++k) {
            v -= rmat[c * cols + k] * x[k];
        }
        x[c] = v / rmat[c * cols + c];
    }
    for (std::size_t c = 0; c < cols; ++c) {
        x[c] /= scale[c];
    }
    return x;
}

/// The fit with the step above `limit` (max: no step). Empty when undetermined.
std::vector<double> fit_at(const std::vector<size_sample>& samples, std::uint64_t limit, double& rss)
{
    const bool step = limit != std::numeric_limits<std::uint64_t>::max();
    const std::size_t cols = step ? 6 : 3;
    std::vector<double> a;
    std::vector<double> y;
    for (const auto& s : samples) {
        // Relative residuals: every row divided by its time (the sizes span 8 B … 64 KiB, and
        // absolute residuals would fit the largest messages only).
        const double w = s.time > 0 ? 1.0 / s.time : 1.0;
        const double b = s.messages;
        const double bn = b * static_cast<double>(s.bytes);
        const double above = s.bytes > limit ? w : 0.0;
        a.insert(a.end(), {2.0 * w, (b + 1.0) * w, (bn + 8.0) * w});
        if (step) {
            a.insert(a.end(), {above, above * b, above * bn});
        }
        y.push_back(s.time * w);
    }
    return solve_least_squares(std::move(a), std::move(y), cols, rss);
}

} // namespace

size_fit fit_size_model(const std::vector<size_sample>& samples, double min_gain)
{
    std::set<int> counts;
    std::set<std::uint64_t> sizes;
    for (const auto& s : samples) {
        if (s.messages < 1) {
            throw std::invalid_argument("treefold: size model fit needs message counts >= 1, got " +
                                        std::to_string(s.messages));
        }
        if (!std::isfinite(s.time)) {
            throw std::invalid_argument("treefold: size model fit got a non-finite time");
        }
        counts.insert(s.messages);
        sizes.insert(s.bytes);
    }
    if (counts.size() < 2 || sizes.size() < 2) {
        throw std::invalid_argument("treefold: size model fit needs at least two message counts and two message "
                                    "sizes, got " +
                                    std::to_string(counts.size()) + " and " + std::to_string(sizes.size()));
    }
    double best_rss = 0;
    std::vector<double> x = fit_at(samples, std::numeric_limits<std::uint64_t>::max(), best_rss);
    if (x.empty()) {
        throw std::invalid_argument("treefold: size model fit: the samples do not determine alpha_p, alpha_r, beta");
    }
    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
    const double no_step_rss = best_rss;
    // Thresholds at each measured size that leaves two sizes above it (δ_p and δ_r need them).
    const std::vector<std::uint64_t> sorted(sizes.begin(), sizes.end());
    for (std::size_t i = 0; i + 2 < sorted.size(); ++i) {
        double rss = 0;
        std::vector<double> xs = fit_at(samples, sorted[i], rss);
        if (!xs.empty() && rss < best_rss && rss < (1.0 - min_gain) * no_step_rss) {
            best_rss = rss;
            x = std::move(xs);
            limit = sorted[i];
        }
    }
    size_fit out;
    out.model.base.alpha_p = x[0];
    out.model.base.alpha_r = x[1];
    out.model.beta = x[2];
    out.model.eager_limit = limit;
    if (x.size() == 6) {
        out.model.rendezvous_p = x[3];
        out.model.rendezvous_r = x[4];
        out.model.rendezvous_beta = x[5];
    }
    out.samples = samples.size();
    out.rms_relative_residual = std::sqrt(best_rss / static_cast<double>(samples.size()));
    return out;
}

size_params read_size_constants(const std::string& path)
{
    std::ifstream in = io::open_regular_file(path);
    return read_size_constants(in, path);
}

size_params read_size_constants(std::istream& in, const std::string& name)
{
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::istringstream base_in(text);
    size_params out;
    out.base = read_constants(base_in, name);
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream ls(line.substr(0, line.find('#'))); // read_constants has checked the form
        std::string key;
        ls >> key;
        if (key == "eager_limit") {
            // Digits only: `>>` into an unsigned would take -1 (wrapped: no step) and 4096.5 (as 4096).
            std::string v;
            ls >> v;
            if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos) {
                throw std::runtime_error("treefold: constants file '" + name +
                                         "': eager_limit needs a whole number of bytes, not '" + v + "'");
            }
            out.eager_limit = std::stoull(v);
        } else if (key == "beta") {
            ls >> out.beta; // read_constants has checked that a number follows
        } else if (key == "rendezvous_p") {
            ls >> out.rendezvous_p;
        } else if (key == "rendezvous_r") {
            ls >> out.rendezvous_r;
        } else if (key == "rendezvous_beta") {
            ls >> out.rendezvous_beta;
        }
    }
    out.check();
    return out;
}

void write_size_constants(const std::string& path, const size_params& m, const std::string& comment)
{
    write_constants(path, m.base, comment);
    std::ofstream out(path, std::ios::app);
    out.precision(17);
    out << "beta " << m.beta << "\n";
    if (has_step(m)) {
        out << "eager_limit " << m.eager_limit << "\n"
            << "rendezvous_p " << m.rendezvous_p << "\n"
            << "rendezvous_r " << m.rendezvous_r << "\n"
            << "rendezvous_beta " << m.rendezvous_beta << "\n";
    }
    if (!out) {
        throw std::runtime_error("treefold: writing constants file '" + path + "' failed");
    }
}

} // namespace treefold::model
