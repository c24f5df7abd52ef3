#pragma once
// Everything of the core component.
#include "dla/core/config.hpp"
#include "dla/core/batch.hpp"
#include "dla/core/context.hpp"
#include "dla/core/device_info.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/eigen_view.hpp"
#include "dla/core/error.hpp"
#include "dla/core/matrix_view.hpp"
#include "dla/core/types.hpp"
