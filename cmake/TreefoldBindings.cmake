# The language bindings over the C API (include/treefold/treefold.h):
#   TREEFOLD_FORTRAN: module treefold (src/fortran), needs a Fortran compiler and MPI's mpi_f08;
#   TREEFOLD_PYTHON:  Python module treefold (src/python), needs Python 3 with its headers,
#                     pybind11, numpy and mpi4py.
# Left unset, each is ON when what it needs is found (scripts/setup installs it on Debian)
# and OFF with a message otherwise; set ON explicitly, a missing piece is an error.
# Both call the C API: without it (TREEFOLD_C_API=OFF) neither is built.
include(CheckLanguage)
if(NOT TREEFOLD_C_API)
  set(TREEFOLD_FORTRAN OFF CACHE BOOL "Build the Fortran module treefold" FORCE)
  set(TREEFOLD_PYTHON OFF CACHE BOOL "Build the Python module treefold" FORCE)
  message(STATUS "treefold: TREEFOLD_C_API=OFF: no C API, Fortran or Python binding")
endif()

# Sets option <option> to <ok>; when not ok, an error if the user asked for it (<required>),
# else a message that <what> is skipped.
function(_treefold_binding_option option ok required what doc)
  if(NOT ok)
    if(required)
      message(FATAL_ERROR "${option}=ON but ${what} cannot be built: it needs ${doc}")
    endif()
    message(STATUS "treefold: ${what} and its tests are skipped (needs ${doc})")
  endif()
  option(${option} "Build ${what}" ${ok})
endfunction()

# ---- Fortran --------------------------------------------------------------------------------
set(_treefold_fortran_required ${TREEFOLD_FORTRAN})
if(NOT DEFINED TREEFOLD_FORTRAN OR TREEFOLD_FORTRAN)
  check_language(Fortran)
  set(_treefold_fortran_ok OFF)
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    find_package(MPI COMPONENTS Fortran)
    if(MPI_Fortran_FOUND AND MPI_Fortran_HAVE_F08_MODULE)
      set(_treefold_fortran_ok ON)
      # The Fortran MPI must be the C++ one (a program with two MPI libraries crashes).
      treefold_mpi_of_libraries(_treefold_fortran_mpi ${MPI_Fortran_LIBRARIES})
      if(_treefold_fortran_mpi AND NOT _treefold_fortran_mpi STREQUAL TREEFOLD_MPI_IMPLEMENTATION)
        set(_treefold_fortran_ok OFF)
        string(CONCAT _treefold_fortran_why " of the same MPI as the library (${TREEFOLD_MPI_IMPLEMENTATION}; "
               "MPI_Fortran_COMPILER ${MPI_Fortran_COMPILER} is ${_treefold_fortran_mpi}'s: give -DMPI_Fortran_COMPILER=<its mpif90>)")
      endif()
    endif()
  endif()
  _treefold_binding_option(TREEFOLD_FORTRAN "${_treefold_fortran_ok}" "${_treefold_fortran_required}"
    "the Fortran module treefold" "a Fortran compiler and MPI's mpi_f08 module${_treefold_fortran_why}")
endif()

# ---- Python ---------------------------------------------------------------------------------
set(_treefold_python_required ${TREEFOLD_PYTHON})
if(NOT DEFINED TREEFOLD_PYTHON OR TREEFOLD_PYTHON)
  # Debian's interpreter is the one with python3-mpi4py, -numpy and -pybind11; prefer it over
  # whatever python3 comes first on PATH (a pyenv shim, say).
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter of the treefold module")
  endif()
  set(_treefold_python_ok OFF)
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    # (mpi4py's MPI extension is found by file, not imported: importing it initialises MPI)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c
      "import glob, os, mpi4py, numpy, pybind11; print(mpi4py.get_include()); print(pybind11.get_cmake_dir()); print((glob.glob(os.path.join(os.path.dirname(mpi4py.__file__), 'MPI*.so')) + [''])[0])"
      OUTPUT_VARIABLE _treefold_py_out RESULT_VARIABLE _treefold_py_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_treefold_py_rc EQUAL 0)
      string(REPLACE "\n" ";" _treefold_py_out "${_treefold_py_out}")
      list(GET _treefold_py_out 0 TREEFOLD_MPI4PY_INCLUDE)
      list(GET _treefold_py_out 1 _treefold_pybind11_dir)
      list(GET _treefold_py_out 2 _treefold_mpi4py_module)
      find_package(pybind11 CONFIG HINTS ${_treefold_pybind11_dir})
      if(pybind11_FOUND)
        set(_treefold_python_ok ON)
      endif()
      # mpi4py must be built for the library's MPI (Debian's is Open MPI's only).
      treefold_mpi_of_library(_treefold_mpi4py_mpi "${_treefold_mpi4py_module}")
      if(_treefold_mpi4py_mpi AND NOT _treefold_mpi4py_mpi STREQUAL TREEFOLD_MPI_IMPLEMENTATION)
        set(_treefold_python_ok OFF)
        string(CONCAT _treefold_python_why " built for the library's MPI (${TREEFOLD_MPI_IMPLEMENTATION}; "
               "this mpi4py, ${_treefold_mpi4py_module}, is built for ${_treefold_mpi4py_mpi})")
      endif()
    endif()
  endif()
  _treefold_binding_option(TREEFOLD_PYTHON "${_treefold_python_ok}" "${_treefold_python_required}"
    "the Python module treefold" "Python 3 with its headers, pybind11, numpy and mpi4py${_treefold_python_why}")
endif()

if(TREEFOLD_FORTRAN)
  add_subdirectory(${PROJECT_SOURCE_DIR}/src/fortran ${PROJECT_BINARY_DIR}/src/fortran)
endif()
if(TREEFOLD_PYTHON)
  add_subdirectory(${PROJECT_SOURCE_DIR}/src/python ${PROJECT_BINARY_DIR}/src/python)
endif()
