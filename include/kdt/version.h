#pragma once
#define KDT_VERSION "0.1.0"
