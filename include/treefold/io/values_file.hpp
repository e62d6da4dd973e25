#pragma once
/// Reading value files: `.binpsllh` (little-endian uint64 N, then N little-endian float64)
/// and text files with one number per line. No MPI: the caller decides who reads.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace treefold::io {

/// Why a file could not be read; what() names the file and the problem.
class file_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Reads a `.binpsllh` file. Throws file_error when the file is missing or unreadable, is
/// shorter than its 8-byte header, or its header N disagrees with its size (truncated or
/// trailing data).
std::vector<double> read_binpsllh(const std::filesystem::path& path);

/// Reads a text file of one number per line (blank lines and surrounding spaces allowed).
/// Throws file_error naming the first line that is not a number.
std::vector<double> read_text_values(const std::filesystem::path& path);

/// read_binpsllh for names ending in `.binpsllh`, read_text_values otherwise.
std::vector<double> read_values(const std::filesystem::path& path);

/// Writes a `.binpsllh` file (for tests and tools).
void write_binpsllh(const std::filesystem::path& path, const std::vector<double>& values);

} // namespace treefold::io
