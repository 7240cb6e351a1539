// The box kernel of tilec.copy_ (api/copy_box.py, BOX_ROWS: case 42 of the strided set,
// int8 (346, 37, 1691, 17) from perm [2, 4, 0, 1, 3]), as copy_program writes it: the
// src runs copied by 16-byte cp.async into slots congruent to them mod 16, each dst
// chunk read from shared memory at a step of n1 (one jump where it crosses a step of
// n2) and stored as one 16-byte vector; 32-bit indices (the promise on the kernel).
// RUN: tilec %s -t cuda | filecheck %s

// CHECK-LABEL: // kernel tilec_copy_kernels::tilec_copy_box: 32-bit indices, block (256, 1, 1)
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(256)
// CHECK-NEXT:  tilec_copy_box(const signed char* __restrict__ src, signed char* __restrict__ dst, int n0, int n1, int n2, int n3,
// CHECK:       __shared__ alignas(16) signed char smem[40960];
// CHECK:       for (int k = warp; k < TK; k += 8) {
// CHECK:       for (int j = lane; j < nch; j += 32) {
// CHECK:       tilec_cp_async<16>(smem + s, src + g);
// CHECK:       tilec_cp_async_commit();
// CHECK-NEXT:  tilec_cp_async_wait<0>();
// CHECK-NEXT:  __syncthreads();
// CHECK:       const int at15 = j15 ? e15 : b15;
// CHECK-NEXT:  const signed char x15 = smem[at15];
// CHECK:       *reinterpret_cast<i8x16*>(dst + cs) = v15;
// CHECK:       dst[pos] = xt;

builtin.module attributes {gpu.container_module} {
  func.func @tilec_copy(%src: memref<?xi8>, %dst: memref<?xi8>, %n0: index, %n1: index, %n2: index, %n3: index, %ss0: index, %ss2: index, %ss3: index, %ds0: index, %ds1: index, %ds2: index, %soff: index, %doff: index, %T: index, %PB: index, %CD: index, %nblocks: index) {
    %c1 = arith.constant 1 : index
    %cthreads = arith.constant 256 : index
    "gpu.launch_func"(%nblocks, %c1, %c1, %cthreads, %c1, %c1, %src, %dst, %n0, %n1, %n2, %n3, %ss0, %ss2, %ss3, %ds0, %ds1, %ds2, %soff, %doff, %T, %PB, %CD, %nblocks) <{kernel = @tilec_copy_kernels::@tilec_copy_box, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 18, 0>}> : (index, index, index, index, index, index, memref<?xi8>, memref<?xi8>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "tilec_copy_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xi8>, memref<?xi8>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%src: memref<?xi8>, %dst: memref<?xi8>, %n0: index, %n1: index, %n2: index, %n3: index, %ss0: index, %ss2: index, %ss3: index, %ds0: index, %ds1: index, %ds2: index, %soff: index, %doff: index, %T: index, %PB: index, %CD: index, %nblocks: index):
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c8 = arith.constant 8 : index
      %c15 = arith.constant 15 : index
      %c16 = arith.constant 16 : index
      %c256 = arith.constant 256 : index
      %cm16 = arith.constant -16 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c9 = arith.constant 9 : index
      %c10 = arith.constant 10 : index
      %c11 = arith.constant 11 : index
      %c12 = arith.constant 12 : index
      %c13 = arith.constant 13 : index
      %c14 = arith.constant 14 : index
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %smem = memref.alloca() {alignment = 16 : i64} : memref<40960xi8, 3>
      %gK = arith.ceildivui %n2, %T : index
      %kc = arith.remui %bid, %gK : index
      %oK = arith.muli %kc, %T : index
      %kq = arith.divui %bid, %gK : index
      %st2 = arith.muli %oK, %ss2 : index
      %sa2 = arith.addi %soff, %st2 : index
      %st0 = arith.muli %kq, %ss0 : index
      %sa0 = arith.addi %sa2, %st0 : index
      %sorig = arith.addi %sa0, %c0 : index
      %dt2 = arith.muli %oK, %ds2 : index
      %da2 = arith.addi %doff, %dt2 : index
      %dt0 = arith.muli %kq, %ds0 : index
      %da0 = arith.addi %da2, %dt0 : index
      %dorig = arith.addi %da0, %c0 : index
      %kleft = arith.subi %n2, %oK : index
      %TK = arith.minui %T, %kleft : index
      %L = arith.muli %n1, %n3 : index
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      scf.for %k = %warp to %TK step %c8 {
        %off_t = arith.muli %k, %ss2 : index
        %off = arith.addi %sorig, %off_t : index
        %mis = arith.andi %off, %c15 : index
        %sb = arith.subi %off, %mis : index
        %lm = arith.addi %mis, %L : index
        %nch = arith.ceildivui %lm, %c16 : index
        %slot = arith.muli %k, %PB : index
        scf.for %j = %lane to %nch step %c32 {
          %j16 = arith.muli %j, %c16 : index
          %g = arith.addi %sb, %j16 : index
          %s = arith.addi %slot, %j16 : index
          cuda.cp_async %smem[%s], %src[%g], 16 : memref<40960xi8, 3>, memref<?xi8>
        }
      }
      cuda.cp_async_commit
      cuda.cp_async_wait 0
      "gpu.barrier"() : () -> ()
      %LD = arith.muli %n3, %TK : index
      %tot = arith.muli %n1, %CD : index
      scf.for %idx = %tid to %tot step %c256 {
        %w = arith.divui %idx, %CD : index
        %wcd = arith.muli %w, %CD : index
        %ci = arith.subi %idx, %wcd : index
        %start_t = arith.muli %w, %ds1 : index
        %start = arith.addi %dorig, %start_t : index
        %end = arith.addi %start, %LD : index
        %sal = arith.andi %start, %cm16 : index
        %c16i = arith.muli %ci, %c16 : index
        %cs = arith.addi %sal, %c16i : index
        %ce = arith.addi %cs, %c16 : index
        %go = arith.cmpi slt, %cs, %end : index
        scf.if %go {
          %lo = arith.maxsi %cs, %start : index
          %p0 = arith.subi %lo, %start : index
          %np0 = arith.muli %n1, %p0 : index
          %d0 = arith.remui %p0, %n3 : index
          %k0 = arith.divui %p0, %n3 : index
          %s0_p = arith.muli %k0, %PB : index
          %s0_o_t = arith.muli %k0, %ss2 : index
          %s0_o = arith.addi %sorig, %s0_o_t : index
          %s0_m = arith.andi %s0_o, %c15 : index
          %s0_s = arith.addi %s0_p, %s0_m : index
          %s0 = arith.addi %s0_s, %w : index
          %nd0 = arith.muli %n1, %d0 : index
          %a0 = arith.addi %s0, %nd0 : index
          %k1 = arith.addi %k0, %c1 : index
          %s1_p = arith.muli %k1, %PB : index
          %s1_o_t = arith.muli %k1, %ss2 : index
          %s1_o = arith.addi %sorig, %s1_o_t : index
          %s1_m = arith.andi %s1_o, %c15 : index
          %s1_s = arith.addi %s1_p, %s1_m : index
          %s1 = arith.addi %s1_s, %w : index
          %nwr = arith.subi %n3, %d0 : index
          %nwrw = arith.muli %nwr, %n1 : index
          %a1 = arith.addi %a0, %nwrw : index
          %delta = arith.subi %s1, %a1 : index
          %f0 = arith.cmpi sge, %cs, %start : index
          %f1 = arith.cmpi sle, %ce, %end : index
          %full = arith.andi %f0, %f1 : i1
          scf.if %full {
            %b0 = arith.addi %a0, %c0 : index
            %x0 = memref.load %smem[%b0] : memref<40960xi8, 3>
            %v0 = vector.broadcast %x0 : i8 to vector<16xi8>
            %b1 = arith.addi %b0, %n1 : index
            %j1 = arith.cmpi sge, %c1, %nwr : index
            %e1 = arith.addi %b1, %delta : index
            %at1 = arith.select %j1, %e1, %b1 : index
            %x1 = memref.load %smem[%at1] : memref<40960xi8, 3>
            %v1 = vector.insert %x1, %v0[1] : i8 into vector<16xi8>
            %b2 = arith.addi %b1, %n1 : index
            %j2 = arith.cmpi sge, %c2, %nwr : index
            %e2 = arith.addi %b2, %delta : index
            %at2 = arith.select %j2, %e2, %b2 : index
            %x2 = memref.load %smem[%at2] : memref<40960xi8, 3>
            %v2 = vector.insert %x2, %v1[2] : i8 into vector<16xi8>
            %b3 = arith.addi %b2, %n1 : index
            %j3 = arith.cmpi sge, %c3, %nwr : index
            %e3 = arith.addi %b3, %delta : index
            %at3 = arith.select %j3, %e3, %b3 : index
            %x3 = memref.load %smem[%at3] : memref<40960xi8, 3>
            %v3 = vector.insert %x3, %v2[3] : i8 into vector<16xi8>
            %b4 = arith.addi %b3, %n1 : index
            %j4 = arith.cmpi sge, %c4, %nwr : index
            %e4 = arith.addi %b4, %delta : index
            %at4 = arith.select %j4, %e4, %b4 : index
            %x4 = memref.load %smem[%at4] : memref<40960xi8, 3>
            %v4 = vector.insert %x4, %v3[4] : i8 into vector<16xi8>
            %b5 = arith.addi %b4, %n1 : index
            %j5 = arith.cmpi sge, %c5, %nwr : index
            %e5 = arith.addi %b5, %delta : index
            %at5 = arith.select %j5, %e5, %b5 : index
            %x5 = memref.load %smem[%at5] : memref<40960xi8, 3>
            %v5 = vector.insert %x5, %v4[5] : i8 into vector<16xi8>
            %b6 = arith.addi %b5, %n1 : index
            %j6 = arith.cmpi sge, %c6, %nwr : index
            %e6 = arith.addi %b6, %delta : index
            %at6 = arith.select %j6, %e6, %b6 : index
            %x6 = memref.load %smem[%at6] : memref<40960xi8, 3>
            %v6 = vector.insert %x6, %v5[6] : i8 into vector<16xi8>
            %b7 = arith.addi %b6, %n1 : index
            %j7 = arith.cmpi sge, %c7, %nwr : index
            %e7 = arith.addi %b7, %delta : index
            %at7 = arith.select %j7, %e7, %b7 : index
            %x7 = memref.load %smem[%at7] : memref<40960xi8, 3>
            %v7 = vector.insert %x7, %v6[7] : i8 into vector<16xi8>
            %b8 = arith.addi %b7, %n1 : index
            %j8 = arith.cmpi sge, %c8, %nwr : index
            %e8 = arith.addi %b8, %delta : index
            %at8 = arith.select %j8, %e8, %b8 : index
            %x8 = memref.load %smem[%at8] : memref<40960xi8, 3>
            %v8 = vector.insert %x8, %v7[8] : i8 into vector<16xi8>
            %b9 = arith.addi %b8, %n1 : index
            %j9 = arith.cmpi sge, %c9, %nwr : index
            %e9 = arith.addi %b9, %delta : index
            %at9 = arith.select %j9, %e9, %b9 : index
            %x9 = memref.load %smem[%at9] : memref<40960xi8, 3>
            %v9 = vector.insert %x9, %v8[9] : i8 into vector<16xi8>
            %b10 = arith.addi %b9, %n1 : index
            %j10 = arith.cmpi sge, %c10, %nwr : index
            %e10 = arith.addi %b10, %delta : index
            %at10 = arith.select %j10, %e10, %b10 : index
            %x10 = memref.load %smem[%at10] : memref<40960xi8, 3>
            %v10 = vector.insert %x10, %v9[10] : i8 into vector<16xi8>
            %b11 = arith.addi %b10, %n1 : index
            %j11 = arith.cmpi sge, %c11, %nwr : index
            %e11 = arith.addi %b11, %delta : index
            %at11 = arith.select %j11, %e11, %b11 : index
            %x11 = memref.load %smem[%at11] : memref<40960xi8, 3>
            %v11 = vector.insert %x11, %v10[11] : i8 into vector<16xi8>
            %b12 = arith.addi %b11, %n1 : index
            %j12 = arith.cmpi sge, %c12, %nwr : index
            %e12 = arith.addi %b12, %delta : index
            %at12 = arith.select %j12, %e12, %b12 : index
            %x12 = memref.load %smem[%at12] : memref<40960xi8, 3>
            %v12 = vector.insert %x12, %v11[12] : i8 into vector<16xi8>
            %b13 = arith.addi %b12, %n1 : index
            %j13 = arith.cmpi sge, %c13, %nwr : index
            %e13 = arith.addi %b13, %delta : index
            %at13 = arith.select %j13, %e13, %b13 : index
            %x13 = memref.load %smem[%at13] : memref<40960xi8, 3>
            %v13 = vector.insert %x13, %v12[13] : i8 into vector<16xi8>
            %b14 = arith.addi %b13, %n1 : index
            %j14 = arith.cmpi sge, %c14, %nwr : index
            %e14 = arith.addi %b14, %delta : index
            %at14 = arith.select %j14, %e14, %b14 : index
            %x14 = memref.load %smem[%at14] : memref<40960xi8, 3>
            %v14 = vector.insert %x14, %v13[14] : i8 into vector<16xi8>
            %b15 = arith.addi %b14, %n1 : index
            %j15 = arith.cmpi sge, %c15, %nwr : index
            %e15 = arith.addi %b15, %delta : index
            %at15 = arith.select %j15, %e15, %b15 : index
            %x15 = memref.load %smem[%at15] : memref<40960xi8, 3>
            %v15 = vector.insert %x15, %v14[15] : i8 into vector<16xi8>
            vector.store %v15, %dst[%cs] : memref<?xi8>, vector<16xi8>
          } else {
            %hi = arith.minsi %ce, %end : index
            %cnt = arith.subi %hi, %lo : index
            scf.for %t = %c0 to %cnt step %c1 {
              %tw = arith.muli %t, %n1 : index
              %bt = arith.addi %a0, %tw : index
              %jt = arith.cmpi sge, %t, %nwr : index
              %et = arith.addi %bt, %delta : index
              %att = arith.select %jt, %et, %bt : index
              %xt = memref.load %smem[%att] : memref<40960xi8, 3>
              %pos = arith.addi %lo, %t : index
              memref.store %xt, %dst[%pos] : memref<?xi8>
            }
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "tilec_copy_box", gpu.known_block_size = array<i32: 256, 1, 1>, tilec.index_bits = 32 : i64} : () -> ()
  }) : () -> ()
}
