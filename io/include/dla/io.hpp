#pragma once
// HDF5 matrix I/O: the whole public API of the io component.
#include "dla/core/error.hpp"
#include "dla/io/read.hpp"
#include "dla/io/types.hpp"
#include "dla/io/writer.hpp"
