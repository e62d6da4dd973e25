#include <boost/test/unit_test.hpp>
BOOST_AUTO_TEST_CASE(placeholder_todo) { BOOST_CHECK(false); }
