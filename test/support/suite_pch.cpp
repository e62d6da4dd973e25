// Builds the suites' precompiled header (suite_pch.hpp); no code of its own.
