# dla_add_component(<name> SOURCES ... [CUDA_SOURCES ...] [STUB_SOURCES ...] [DEPS ...])
#
# One static library per component, named dla_<name>, public headers under
# <name>/include. CUDA_SOURCES are compiled only when the CUDA backend is built;
# STUB_SOURCES only when it is not (entry points that throw "not compiled").
function(dla_add_component name)
  cmake_parse_arguments(ARG "" "" "SOURCES;CUDA_SOURCES;STUB_SOURCES;DEPS" ${ARGN})
  set(srcs ${ARG_SOURCES})
  if(DLA_HAVE_CUDA)
    list(APPEND srcs ${ARG_CUDA_SOURCES})
  else()
    list(APPEND srcs ${ARG_STUB_SOURCES})
  endif()
  add_library(dla_${name} STATIC ${srcs})
  add_library(dla::${name} ALIAS dla_${name})
  target_include_directories(dla_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(dla_${name} PUBLIC ${ARG_DEPS})
  target_compile_features(dla_${name} PUBLIC cxx_std_20)
  if(DLA_HAVE_CUDA)
    set_target_properties(dla_${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
    target_compile_options(dla_${name} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo -Xptxas=-warn-spills>)
  endif()
  set_target_properties(dla_${name} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS dla_${name} EXPORT dlaTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN "*.in" EXCLUDE)
endfunction()
