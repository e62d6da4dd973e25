// The same-bits matrix (same_bits_matrix.hpp) for the direct exchange and the binomial tree.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP direct_binomial
#include "same_bits_cases.hpp"

// Every group of same_bits_matrix.hpp (exchange_groups) has its file linked into this
// executable: each case's suite holds one test per group. A group without its
// same_bits_<group>.cpp would otherwise leave its exchanges out of the matrix unnoticed.
BOOST_AUTO_TEST_SUITE(same_bits)

BOOST_AUTO_TEST_CASE(every_exchange_group_is_linked_in)
{
    namespace ut = boost::unit_test;
    const auto groups = treefold::testing::same_bits_matrix::exchange_groups::size;
    const std::pair<const char*, const char*> cases[] = {
        {"same_bits", "double_sum_every_n_up_to_300"}, {"same_bits", "double_sums_every_kernel"},
        {"same_bits", "float_and_integer_sums"},        {"same_bits", "non_associative_and_stateful_operators"},
        {"same_bits", "non_commutative_operators"},     {"same_bits", "serialized_types"},
        {"data_sets", "reference_bits_everywhere"},     {"data_sets", "large_files_against_the_oracle"}};
    for (const auto& [suite, name] : cases) {
        const auto& top = ut::framework::get<ut::test_suite>(ut::framework::master_test_suite().get(suite));
        const auto& tests = ut::framework::get<ut::test_suite>(top.get(name));
        BOOST_CHECK_MESSAGE(tests.size() == groups, suite << "/" << name << " holds " << tests.size()
                                                          << " tests, one per exchange group wants " << groups);
    }
}

BOOST_AUTO_TEST_SUITE_END()
