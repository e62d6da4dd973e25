// exchange::automatic's process-wide state: the environment, the calibration file, the cache.
#include "treefold/exchange/automatic.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mpi.h>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>

namespace treefold::exchange::detail {
namespace {

using key_tuple = std::tuple<int, unsigned, std::size_t>;

key_tuple as_tuple(const choice_key& k) { return {k.p, k.level, k.bytes}; }

std::mutex& choices_lock()
{
    static std::mutex m;
    return m;
}
std::map<key_tuple, int>& choices() // guarded by choices_lock()
{
    static std::map<key_tuple, int> c;
    return c;
}

int index_of(std::span<const std::string_view> names, std::string_view name)
{
    const auto at = std::find(names.begin(), names.end(), name);
    return at == names.end() ? -1 : static_cast<int>(at - names.begin());
}

thread_local std::string_view scoped_choice; // set by forced_choice_scope

} // namespace

std::string mpi_library()
{
    // The first line of MPI_Get_library_version, blanks collapsed: "Open MPI v4.1.4, package:
    // ...", "MPICH Version: 4.0.2". (Callable before MPI_Init, as the standard allows.)
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) {
        return "unknown";
    }
    std::string out;
    for (int i = 0; i < length && text[i] != '\0' && text[i] != '\n'; ++i) {
        const bool blank = text[i] == ' ' || text[i] == '\t' || text[i] == '\r';
        if (!blank) {
            out += text[i];
        } else if (!out.empty() && out.back() != ' ') {
            out += ' ';
        }
    }
    while (!out.empty() && out.back() == ' ') {
        out.pop_back();
    }
    return out.empty() ? "unknown" : out;
}

forced_choice_scope::forced_choice_scope(std::string_view name) { scoped_choice = name; }
forced_choice_scope::~forced_choice_scope() { scoped_choice = {}; }

int forced_candidate(std::span<const std::string_view> names)
{
    if (!scoped_choice.empty()) {
        return index_of(names, scoped_choice) < 0 ? -2 : index_of(names, scoped_choice);
    }
    const char* e = std::getenv("TREEFOLD_EXCHANGE");
    if (e == nullptr || *e == '\0') {
        return -1;
    }
    const int at = index_of(names, e);
    return at < 0 ? -2 : at;
}

bool load_calibration_file(std::span<const std::string_view> names)
{
    const char* path = std::getenv("TREEFOLD_CALIBRATION");
    if (path == nullptr || *path == '\0') {
        return true;
    }
    static std::string loaded; // guarded by choices_lock()
    const std::lock_guard<std::mutex> lock(choices_lock());
    if (loaded == path) {
        return true;
    }
    // Only a regular file: opening a FIFO would block every rank.
    struct stat status {};
    if (::stat(path, &status) != 0 || !S_ISREG(status.st_mode)) {
        return false;
    }
    std::ifstream in(path);
    std::map<key_tuple, int> entries;
    std::string line;
    while (in && std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        if (line.rfind("mpi ", 0) == 0) {
            // Choices are timings of one MPI library: a file written under another is refused.
            if (line.substr(4) != mpi_library()) {
                return false;
            }
            continue;
        }
        std::istringstream fields(line);
        int p = 0;
        unsigned level = 0;
        std::size_t bytes = 0;
        std::string name;
        std::string extra;
        if (!(fields >> p >> level >> bytes >> name) || (fields >> extra) || index_of(names, name) < 0) {
            return false;
        }
        entries[{p, level, bytes}] = index_of(names, name);
    }
    if (!in.eof()) {
        return false; // not opened, or a read error
    }
    for (const auto& [key, choice] : entries) {
        choices()[key] = choice;
    }
    loaded = path;
    return true;
}

int cached_choice(const choice_key& key)
{
    const std::lock_guard<std::mutex> lock(choices_lock());
    const auto it = choices().find(as_tuple(key));
    return it == choices().end() ? -1 : it->second;
}

void remember_choice(const choice_key& key, int choice)
{
    const std::lock_guard<std::mutex> lock(choices_lock());
    choices()[as_tuple(key)] = choice;
}

void forget_calibration()
{
    const std::lock_guard<std::mutex> lock(choices_lock());
    choices().clear();
}

} // namespace treefold::exchange::detail
