#pragma once
/// Checks of error messages shared by the suites.

#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>

namespace treefold::testing {

/// True iff `f` throws std::invalid_argument whose message contains `needle` (a message that
/// lacks it is logged, so a failing check shows what was said instead).
template <class F>
bool throws_with(F&& f, const std::string& needle)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        const bool ok = std::string(e.what()).find(needle) != std::string::npos;
        if (!ok) {
            BOOST_TEST_MESSAGE("message was: " << e.what());
        }
        return ok;
    }
    return false;
}

} // namespace treefold::testing
