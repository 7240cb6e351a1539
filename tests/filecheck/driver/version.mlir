// RUN: tilec --version | filecheck %s
// CHECK: {{^}}tilec {{[0-9]+\.[0-9]+\.[0-9]+}}
