// The failure record's code (error.hpp): compiled once here instead of in every program.
#include "treefold/error.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <typeinfo>

namespace treefold {

failure failure::op_threw(int rank, const std::exception_ptr& e)
{
    failure f{.what = code::op_threw, .rank = rank, .got = 0, .want = 0, .text = {}, .type = {}};
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& ex) {
        f.text.assign(ex.what(), std::min(std::strlen(ex.what()), text_bytes));
        f.type = current_type_name();
    } catch (...) {
        f.type = current_type_name();
    }
    return f;
}

std::string failure::current_type_name()
{
    const std::type_info* t = abi::__cxa_current_exception_type();
    if (t == nullptr) {
        return {};
    }
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> readable(abi::__cxa_demangle(t->name(), nullptr, nullptr, &status),
                                                    std::free);
    std::string name = status == 0 && readable ? readable.get() : t->name();
    if (name.size() > type_bytes) {
        name = ".." + name.substr(name.size() - (type_bytes - 2));
    }
    return name;
}

std::string failure::message() const
{
    switch (what) {
    case code::local_size:
        return "treefold: rank " + std::to_string(rank) + " passed " + std::to_string(got) +
               " local values but its block holds " + std::to_string(want);
    case code::bad_buffer:
        return "treefold: rank " + std::to_string(rank) + " passed an invalid buffer";
    case code::out_of_order:
        return "treefold: the MPI library combined non-adjacent ranges on rank " + std::to_string(rank) +
               " (one ending at index " + std::to_string(got) + ", the next starting at " + std::to_string(want) +
               "): it broke rank order, no result";
    case code::bad_root:
        return "treefold: rank " + std::to_string(rank) + " passed reduce root " +
               std::to_string(static_cast<std::int64_t>(got)) + ", not a rank of a communicator of size " +
               std::to_string(want);
    default: {
        std::string m = what == code::codec_threw ? "treefold: encoding or decoding a value threw"
                                                  : "treefold: the reduction operator threw";
        if (!type.empty()) {
            m += " " + type;
        }
        m += " on rank " + std::to_string(rank);
        if (!text.empty()) {
            m += ": " + text;
        }
        return m;
    }
    }
}

std::vector<char> encode(const failure& f, std::size_t limit)
{
    const std::size_t room = std::max(limit, failure::min_record_bytes) - failure::min_record_bytes;
    const std::size_t text = std::min({f.text.size(), failure::text_bytes, room});
    const std::size_t type = std::min({f.type.size(), failure::type_bytes, room - text});
    std::vector<char> out(failure::head_bytes + 1 + type + text);
    const std::int32_t head[2] = {static_cast<std::int32_t>(f.what), f.rank};
    std::memcpy(out.data(), head, 8);
    std::memcpy(out.data() + 8, &f.got, 8);
    std::memcpy(out.data() + 16, &f.want, 8);
    out[failure::head_bytes] = static_cast<char>(type);
    std::memcpy(out.data() + failure::head_bytes + 1, f.type.data(), type);
    std::memcpy(out.data() + failure::head_bytes + 1 + type, f.text.data(), text);
    return out;
}

failure decode_failure(const char* data, std::size_t n)
{
    const std::size_t type = n > failure::head_bytes ? static_cast<unsigned char>(data[failure::head_bytes]) : 0;
    if (n < failure::head_bytes + 1 || type > failure::type_bytes || n < failure::head_bytes + 1 + type) {
        throw std::logic_error("treefold: failure record of unexpected size (internal error)");
    }
    failure f;
    std::int32_t head[2];
    std::memcpy(head, data, 8);
    f.what = static_cast<failure::code>(head[0]);
    f.rank = head[1];
    std::memcpy(&f.got, data + 8, 8);
    std::memcpy(&f.want, data + 16, 8);
    f.type.assign(data + failure::head_bytes + 1, type);
    const std::size_t text = n - failure::head_bytes - 1 - type;
    f.text.assign(data + failure::head_bytes + 1 + type, std::min(text, failure::text_bytes));
    return f;
}

void check_root(int root, int p)
{
    if (root < 0 || root >= p) {
        throw call_mismatch(call_mismatch::kind::root, "treefold: reduce root " + std::to_string(root) +
                                                           " is not a rank of a communicator of size " +
                                                           std::to_string(p));
    }
}

void throw_failure(const maybe_failure& failed, const std::exception_ptr& own_error)
{
    if (own_error) {
        std::rethrow_exception(own_error);
    }
    if (!failed) {
        throw std::logic_error("treefold: throw_failure called for a call that did not fail");
    }
    if (failed->what == failure::code::local_size) {
        throw local_size_error(failed->message());
    }
    if (failed->what == failure::code::bad_root) {
        throw call_mismatch(call_mismatch::kind::root, failed->message());
    }
    throw remote_failure(*failed);
}

} // namespace treefold
