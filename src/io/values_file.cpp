#include "treefold/io/values_file.hpp"

#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace treefold::io {

namespace {

static_assert(std::endian::native == std::endian::little, "treefold: .binpsllh reading assumes a little-endian host");

std::string describe(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

std::ifstream open(const std::filesystem::path& path, std::ios::openmode mode)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        throw file_error("treefold: file " + describe(path) + " does not exist");
    }
    if (std::filesystem::is_directory(path, ec)) {
        throw file_error("treefold: " + describe(path) + " is a directory, not a file");
    }
    std::ifstream in(path, mode);
    if (!in) {
        throw file_error("treefold: cannot open " + describe(path) + ": " + std::strerror(errno));
    }
    return in;
}

} // namespace

std::vector<double> read_binpsllh(const std::filesystem::path& path)
{
    std::ifstream in = open(path, std::ios::binary);
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        throw file_error("treefold: cannot read the size of " + describe(path) + ": " + ec.message());
    }
    if (size < 8) {
        throw file_error("treefold: " + describe(path) + " is " + std::to_string(size) +
                         " bytes, shorter than the 8-byte header of a .binpsllh file");
    }
    std::uint64_t n = 0;
    in.read(reinterpret_cast<char*>(&n), sizeof n);
    const std::uintmax_t payload = size - 8;
    if (payload % 8 != 0 || payload / 8 != n) {
        throw file_error("treefold: " + describe(path) + " says N = " + std::to_string(n) + " but holds " +
                         std::to_string(payload) + " bytes of data (" + std::to_string(payload / 8) +
                         (payload % 8 != 0 ? " values and a partial one)" : " values)"));
    }
    std::vector<double> values(n);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(n * sizeof(double)));
    if (!in) {
        throw file_error("treefold: reading " + describe(path) + " failed part-way");
    }
    return values;
}

std::vector<double> read_text_values(const std::filesystem::path& path)
{
    std::ifstream in = open(path, std::ios::in);
    std::vector<double> values;
    std::string line;
    std::uint64_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) {
            continue;
        }
        const auto last = line.find_last_not_of(" \t\r");
        const std::string text = line.substr(first, last - first + 1);
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size() || text.empty()) {
            throw file_error("treefold: " + describe(path) + " line " + std::to_string(number) + ": '" + text +
                             "' is not a number");
        }
        values.push_back(v);
    }
    if (in.bad()) {
        throw file_error("treefold: reading " + describe(path) + " failed part-way");
    }
    return values;
}

std::vector<double> read_values(const std::filesystem::path& path)
{
    return path.extension() == ".binpsllh" ? read_binpsllh(path) : read_text_values(path);
}

void write_binpsllh(const std::filesystem::path& path, const std::vector<double>& values)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const std::uint64_t n = values.size();
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(n * sizeof(double)));
    if (!out) {
        throw file_error("treefold: cannot write " + describe(path));
    }
}

} // namespace treefold::io
