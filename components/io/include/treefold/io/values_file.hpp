#pragma once
/// Reading value files: `.binpsllh` (little-endian uint64 N, then N little-endian float64)
/// and text files with one number per line. No MPI: the caller decides who reads.

#include "treefold/config.hpp"

#include <cstdint>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace treefold::io {

/// Why a file could not be read; what() names the file and the problem.
class file_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Opens a file for reading, refusing what is not a regular file: a FIFO, socket or device
/// would block or never end, so every reader of user-named files goes through here. Throws
/// file_error when the file is missing, a directory, not a regular file, or unreadable.
std::ifstream open_regular_file(const std::filesystem::path& path, std::ios::openmode mode = std::ios::in);

/// `text` as it may be shown in a message: control and non-ASCII bytes (NUL included, which
/// would end a C string) written as `\\xHH`, and anything beyond `max_chars` cut off with the
/// full length noted, so neither binary data nor a huge line can spoil the message.
std::string printable_excerpt(std::string_view text, std::size_t max_chars = 40);

/// Reads a `.binpsllh` file. Throws file_error when the file is missing, not a regular file
/// or unreadable, is shorter than its 8-byte header, or its header N disagrees with its size
/// (truncated or trailing data).
std::vector<double> read_binpsllh(const std::filesystem::path& path);

/// Reads a text file of one number per line (blank lines and surrounding spaces allowed).
/// Throws file_error naming the first line that is not a number, holds binary data (a control
/// byte such as NUL), or is out of the range of a double (1e400 would otherwise become
/// infinity; numbers that underflow round to a subnormal or zero as usual).
std::vector<double> read_text_values(const std::filesystem::path& path);

/// read_text_values from a stream; `name` is what messages call it.
std::vector<double> read_text_values(std::istream& in, const std::string& name);

/// read_binpsllh for names ending in `.binpsllh`, read_text_values otherwise; the name "-"
/// reads text from standard input (a file of that name is "./-").
std::vector<double> read_values(const std::filesystem::path& path);

/// Writes a `.binpsllh` file (for tests and tools).
void write_binpsllh(const std::filesystem::path& path, const std::vector<double>& values);

} // namespace treefold::io
