# Installation (cmake --install build --prefix P):
#   P/bin/damka                          the tool
#   P/lib/libdamka_<area>.a              static libraries, one per area (damka::rules ... damka::statutes)
#   P/lib/libdamka.so                    every area in one shared library (damka::shared)
#   P/include/damka.h, damka_statutes.h  the C API; P/include/damka/*.hpp the C++ API
#   P/share/damka/rulebooks/*.json       the rulebooks (found relative to the tool and the libraries)
#   P/lib/cmake/damka/                   the CMake package: find_package(damka)
#   P/lib/pkgconfig/damka.pc             pkg-config, shared library; damka-static.pc for the static ones
include(CMakePackageConfigHelpers)

set(damka_areas rules format words generator probe statutes)
foreach(area ${damka_areas})
  set_target_properties(damka_${area} PROPERTIES EXPORT_NAME ${area})
  # The C++ API needs C++20 (std::popcount, concepts): a consumer's C++ code is
  # compiled as C++20 at least, whatever its own CMAKE_CXX_STANDARD.
  target_compile_features(damka_${area} PUBLIC cxx_std_20)
  add_library(damka::${area} ALIAS damka_${area})
endforeach()

# An installed prefix works wherever it is moved and without environment
# variables: what is installed finds the prefix's libraries through an
# $ORIGIN-relative run path.
file(RELATIVE_PATH damka_bin_to_lib "/p/${CMAKE_INSTALL_BINDIR}" "/p/${CMAKE_INSTALL_LIBDIR}")
set_target_properties(damka PROPERTIES INSTALL_RPATH "$ORIGIN/${damka_bin_to_lib}")

# libdamka.so: the area libraries' objects in one shared library.
add_library(damka_shared SHARED)
foreach(area ${damka_areas})
  target_sources(damka_shared PRIVATE $<TARGET_OBJECTS:damka_${area}>)
endforeach()
target_link_libraries(damka_shared PRIVATE PkgConfig::ZSTD PkgConfig::XXHASH OpenMP::OpenMP_CXX Threads::Threads)
target_link_libraries(damka_shared INTERFACE nlohmann_json::nlohmann_json)  # statutes.hpp, words_json.hpp use it
target_include_directories(damka_shared INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
foreach(area ${damka_areas})
  target_include_directories(damka_shared INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/${area}/include>)
endforeach()
target_compile_features(damka_shared INTERFACE cxx_std_20)
set_target_properties(damka_shared PROPERTIES OUTPUT_NAME damka EXPORT_NAME shared INSTALL_RPATH "$ORIGIN"
                                              VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
add_library(damka::shared ALIAS damka_shared)

install(TARGETS damka RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS damka_rules damka_format damka_words damka_generator damka_probe damka_statutes damka_shared
        EXPORT damkaTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(area ${damka_areas})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${area}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/rulebooks/ DESTINATION ${CMAKE_INSTALL_DATADIR}/damka/rulebooks
        FILES_MATCHING PATTERN "*.json")

set(damka_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/damka)
set(DAMKA_RULEBOOKS_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/damka/rulebooks)
install(EXPORT damkaTargets NAMESPACE damka:: DESTINATION ${damka_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/damkaConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/damkaConfig.cmake
                              INSTALL_DESTINATION ${damka_cmake_dir}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR DAMKA_RULEBOOKS_INSTALL_DIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/damkaConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/damkaConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/damkaConfigVersion.cmake
        DESTINATION ${damka_cmake_dir})

# pkg-config files locate the prefix from their own place (relocatable).
file(RELATIVE_PATH DAMKA_PC_PREFIX_FROM_PCFILEDIR "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
foreach(pc damka damka-static)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
