// The object that carries compile_check_pch (CMakeLists.txt): common.hpp precompiled.
