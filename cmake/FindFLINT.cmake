# FindFLINT: FLINT 2.9 with the GMP and MPFR it is built on (Debian's
# libflint-dev, libgmp-dev, libmpfr-dev), as the imported target FLINT::FLINT.
# netpoly's build uses it, and so does find_package(netpoly) (installed beside
# netpoly-config.cmake): netpoly's public headers include FLINT's.
#
# Sets FLINT_FOUND, FLINT_INCLUDE_DIR, FLINT_LIBRARY, GMP_INCLUDE_DIR,
# GMP_LIBRARY, MPFR_LIBRARY. A part not found is named with its Debian package.
find_path(FLINT_INCLUDE_DIR flint/fmpz_mpoly.h)
find_library(FLINT_LIBRARY flint)
find_path(GMP_INCLUDE_DIR gmp.h)
find_library(GMP_LIBRARY gmp)
find_library(MPFR_LIBRARY mpfr)

set(_flint_missing)
foreach(_part FLINT_INCLUDE_DIR:libflint-dev FLINT_LIBRARY:libflint-dev GMP_INCLUDE_DIR:libgmp-dev
              GMP_LIBRARY:libgmp-dev MPFR_LIBRARY:libmpfr-dev)
  string(REPLACE ":" ";" _part "${_part}")
  list(GET _part 0 _var)
  list(GET _part 1 _pkg)
  if(NOT ${_var})
    list(APPEND _flint_missing "${_var} (install the Debian package '${_pkg}'; scripts/setup does this)")
  endif()
endforeach()

if(FLINT_INCLUDE_DIR)
  file(STRINGS "${FLINT_INCLUDE_DIR}/flint/flint.h" _flint_ver REGEX "define __FLINT_VERSION_MINOR")
  if(NOT _flint_ver MATCHES "MINOR 9")
    message(WARNING "netpoly targets FLINT 2.9 (Debian's libflint-dev); found: ${_flint_ver}")
  endif()
endif()

if(_flint_missing)
  set(FLINT_FOUND FALSE)
  string(REPLACE ";" ", " _flint_missing "${_flint_missing}")
  if(FLINT_FIND_REQUIRED)
    message(FATAL_ERROR "netpoly: FLINT not found: ${_flint_missing}")
  elseif(NOT FLINT_FIND_QUIETLY)
    message(STATUS "netpoly: FLINT not found: ${_flint_missing}")
  endif()
  return()
endif()
set(FLINT_FOUND TRUE)
if(NOT TARGET FLINT::FLINT)
  add_library(FLINT::FLINT INTERFACE IMPORTED)
  set_target_properties(FLINT::FLINT PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${FLINT_INCLUDE_DIR};${GMP_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${FLINT_LIBRARY};${MPFR_LIBRARY};${GMP_LIBRARY}")
endif()
