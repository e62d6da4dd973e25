#include "treefold/io/values_file.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

namespace treefold::io {

namespace {

static_assert(std::endian::native == std::endian::little, "treefold: .binpsllh reading assumes a little-endian host");

std::string describe(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

/// What a non-regular file is, for the message.
const char* kind_of(std::filesystem::file_type t)
{
    switch (t) {
    case std::filesystem::file_type::fifo: return "a FIFO (named pipe)";
    case std::filesystem::file_type::socket: return "a socket";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    default: return "not a regular file";
    }
}

} // namespace

std::ifstream open_regular_file(const std::filesystem::path& path, std::ios::openmode mode)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (status.type() == std::filesystem::file_type::not_found) {
        throw file_error("treefold: file " + describe(path) + " does not exist");
    }
    if (status.type() == std::filesystem::file_type::directory) {
        throw file_error("treefold: " + describe(path) + " is a directory, not a file");
    }
    // Checked before opening: open() on a FIFO blocks until a writer appears.
    if (!ec && status.type() != std::filesystem::file_type::regular) {
        throw file_error("treefold: " + describe(path) + " is " + kind_of(status.type()) +
                         ", not a regular file (for standard input, give -)");
    }
    std::ifstream in(path, mode);
    if (!in) {
        throw file_error("treefold: cannot open " + describe(path) + ": " + std::strerror(errno));
    }
    return in;
}

std::string printable_excerpt(std::string_view text, std::size_t max_chars)
{
    std::string out;
    for (std::size_t i = 0; i < text.size() && i < max_chars; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c >= 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(c));
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    if (text.size() > max_chars) {
        out += "... (" + std::to_string(text.size()) + " characters)";
    }
    return out;
}

std::vector<double> read_binpsllh(const std::filesystem::path& path)
{
    std::ifstream in = open_regular_file(path, std::ios::binary);
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
    std::ifstream in = open_regular_file(path, std::ios::in);
    return read_text_values(in, path.string());
}

std::vector<double> read_text_values(std::istream& in, const std::string& name)
{
    const std::string where = "treefold: '" + name + "' line ";
    std::vector<double> values;
    std::string line;
    std::uint64_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        // A control byte other than tab and carriage return is no part of a number: most
        // likely a binary file (a .binpsllh without its extension), which deserves saying so.
        const auto control = std::find_if(line.begin(), line.end(), [](char ch) {
            const auto c = static_cast<unsigned char>(ch);
            return (c < 0x20 && c != '\t' && c != '\r') || c == 0x7F;
        });
        if (control != line.end()) {
            char byte[8];
            std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(*control)));
            throw file_error(where + std::to_string(number) + ": binary data (byte " + byte + " at column " +
                             std::to_string(control - line.begin() + 1) +
                             "), not a number per line; a .binpsllh file needs its .binpsllh extension");
        }
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) {
            continue;
        }
        const auto last = line.find_last_not_of(" \t\r");
        const std::string text = line.substr(first, last - first + 1);
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size()) {
            throw file_error(where + std::to_string(number) + ": '" + printable_excerpt(text) + "' is not a number");
        }
        // strtod reports overflow as ERANGE with +-HUGE_VAL; a written "inf" has no ERANGE.
        if (errno == ERANGE && std::isinf(v)) {
            throw file_error(where + std::to_string(number) + ": '" + printable_excerpt(text) +
                             "' is out of the range of a double (largest magnitude about 1.8e308)");
        }
        values.push_back(v);
    }
    if (in.bad()) {
        throw file_error("treefold: reading '" + name + "' failed part-way");
    }
    return values;
}

std::vector<double> read_values(const std::filesystem::path& path)
{
    if (path == "-") {
        return read_text_values(std::cin, "standard input");
    }
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
