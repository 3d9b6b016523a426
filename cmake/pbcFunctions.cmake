# pbc_add_library(<target> PROTOS a.proto... [IMPORT_DIRS dir...]
#                 [OPTIONS opt...])
#
# Compiles the .proto files with `pbc compile` at build time into
# lib<target>.a plus a STEM.pbc.h per file, and defines <target>, an imported
# static library carrying the headers' directory: target_link_libraries(app
# PRIVATE <target>) is all an app needs (the runtime is inside the archive).
#
# IMPORT_DIRS are the -I directories (default: each .proto file's folder);
# relative paths are from the current source directory. OPTIONS go to
# `pbc compile` as they are (e.g. -O3, -j1 where the build already runs
# many pbc at once, --target=aarch64-linux-gnu,
# --cpp-header for STEM.pbc.hpp).
#
# The archive is rebuilt when a .proto file, any file it imports (pbc writes
# a depfile), or the pbc executable changes, and only then.
#
# pbc puts each function and object in a section of its own, so a program
# linked with --gc-sections leaves out the messages and the runtime code it
# never reaches: <target> asks for --gc-sections on the links that use it
# when the project's linker takes it (set PBC_GC_SECTIONS to OFF before the
# call to leave the link as it is), with -z nostart-stop-gc where the linker
# takes that too: a program that calls pbc_find_message then keeps every
# message's registry entry (GNU ld's default; lld's is to drop them).
function(pbc_add_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "PROTOS;IMPORT_DIRS;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pbc_add_library(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_PROTOS)
    message(FATAL_ERROR "pbc_add_library(${target}): no PROTOS given")
  endif()

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/pbc/${target})
  set(archive ${out_dir}/lib${target}.a)
  set(depfile ${out_dir}/lib${target}.d)
  file(MAKE_DIRECTORY ${out_dir})

  set(protos)
  set(headers)
  set(import_args)
  foreach(proto IN LISTS ARG_PROTOS)
    get_filename_component(abs ${proto} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(stem ${abs} NAME_WE)
    list(APPEND protos ${abs})
    list(APPEND headers ${out_dir}/${stem}.pbc.h)
    if("--cpp-header" IN_LIST ARG_OPTIONS)
      list(APPEND headers ${out_dir}/${stem}.pbc.hpp)
    endif()
    if(NOT ARG_IMPORT_DIRS)
      get_filename_component(dir ${abs} DIRECTORY)
      list(APPEND import_args -I${dir})
    endif()
  endforeach()
  foreach(dir IN LISTS ARG_IMPORT_DIRS)
    get_filename_component(abs ${dir} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND import_args -I${abs})
  endforeach()
  list(REMOVE_DUPLICATES import_args)

  list(TRANSFORM PBC_RUNTIME_HEADERS PREPEND ${out_dir}/ OUTPUT_VARIABLE runtime_headers)

  set(depfile_args)
  if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    set(depfile_args DEPFILE ${depfile})
  endif()
  add_custom_command(
    OUTPUT ${archive} ${headers} ${runtime_headers}
    COMMAND ${PBC_EXECUTABLE} compile ${import_args} ${protos}
            -o ${archive} --dependency_out=${depfile} ${ARG_OPTIONS}
    DEPENDS ${protos} ${PBC_EXECUTABLE}
    ${depfile_args}
    COMMENT "pbc: compiling ${ARG_PROTOS} into lib${target}.a"
    VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${target}_pbc_generate DEPENDS ${archive} ${headers})

  add_library(${target} STATIC IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION ${archive}
    INTERFACE_INCLUDE_DIRECTORIES ${out_dir})
  add_dependencies(${target} ${target}_pbc_generate)
  if(_pbc_linker_gc_sections AND NOT (DEFINED PBC_GC_SECTIONS AND NOT PBC_GC_SECTIONS))
    set(gc_options "LINKER:--gc-sections")
    if(_pbc_linker_nostart_stop_gc)
      list(APPEND gc_options "LINKER:-z,nostart-stop-gc")
    endif()
    set_property(TARGET ${target} PROPERTY INTERFACE_LINK_OPTIONS ${gc_options})
  endif()
endfunction()

# Whether the project's linker takes --gc-sections, asked once, in the
# first language the project enabled (C or C++).
get_property(_pbc_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
foreach(_pbc_language IN ITEMS C CXX)
  if(_pbc_language IN_LIST _pbc_languages)
    include(CheckLinkerFlag)
    check_linker_flag(${_pbc_language} "LINKER:--gc-sections" _pbc_linker_gc_sections)
    check_linker_flag(${_pbc_language} "LINKER:-z,nostart-stop-gc" _pbc_linker_nostart_stop_gc)
    break()
  endif()
endforeach()
