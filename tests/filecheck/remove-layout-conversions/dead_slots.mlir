// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// Dead loop-carried values: a slot of an scf.for whose result is unused and whose body
// argument feeds, through pure ops, only its own next value is deleted, with the ops
// that computed it and the conversion that initialised it; the same for a value an
// scf.while carries through `before` and `after`.

// EQ: @dead_slot: equivalent
// EQ: @dead_slot_nested: equivalent
// EQ: @live_slot: equivalent
// EQ: @dead_while_slot: equivalent
// EQ: @dead_while_slot_nested: equivalent
// EQ: @live_while_slot: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// %d is carried, doubled and never read after the loop: it goes, and so does the
// conversion of its start; the loop keeps the live accumulator only.
// CHECK-LABEL: func.func @dead_slot
// CHECK-NOT:     layout.convert_layout
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>) {
// CHECK-NOT:       layout.convert_layout
// CHECK-NOT:       arith.mulf
// CHECK:           scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    layout.store
func.func @dead_slot(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %x0 = layout.load %b : !G2 -> tensor<32x32xf32, #A>
    %d0 = layout.convert_layout %x0 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %sum, %dd = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero, %d = %d0) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>) {
      %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
      %n = arith.addf %acc, %x : tensor<32x32xf32, #A>
      %d2 = arith.mulf %d, %d : tensor<32x32xf32, #B>
      %d3 = arith.addf %d2, %d : tensor<32x32xf32, #B>
      scf.yield %n, %d3 : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// The dead slot is carried by an inner loop nested in the outer one: both loops lose it.
// CHECK-LABEL: func.func @dead_slot_nested
// CHECK-NOT:     layout.convert_layout
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>) {
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>) {
// CHECK-NOT:         layout.convert_layout
// CHECK-NOT:         arith.mulf
// CHECK:             scf.yield
// CHECK:           scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    layout.store
func.func @dead_slot_nested(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %x0 = layout.load %b : !G2 -> tensor<32x32xf32, #A>
    %d0 = layout.convert_layout %x0 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %sum, %dd = scf.for %j = %c0 to %c2 step %c1 iter_args(%acc = %zero, %d = %d0) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>) {
      %s2, %e2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc2 = %acc, %e = %d) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>) {
        %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
        %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
        %n = arith.addf %acc2, %x : tensor<32x32xf32, #A>
        %e3 = arith.mulf %e, %e : tensor<32x32xf32, #B>
        scf.yield %n, %e3 : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>
      }
      scf.yield %s2, %e2 : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// A slot that also feeds a live value is kept.
// CHECK-LABEL: func.func @live_slot
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) ->
// CHECK:           arith.mulf
func.func @live_slot(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %x0 = layout.load %b : !G2 -> tensor<32x32xf32, #A>
    %sum, %dd = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero, %d = %x0) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #A>) {
      %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
      %d2 = arith.mulf %d, %x : tensor<32x32xf32, #A>
      %n = arith.addf %acc, %d2 : tensor<32x32xf32, #A>
      scf.yield %n, %d2 : tensor<32x32xf32, #A>, tensor<32x32xf32, #A>
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// scf.while: %d enters `before`, is negated there and forwarded, doubled in `after`
// and yielded back; its result is unused. The value goes from both regions, with its
// ops and the conversion of its start; the live accumulator stays.
// CHECK-LABEL: func.func @dead_while_slot
// CHECK-NOT:     layout.convert_layout
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>, index) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>, index) {
// CHECK-NOT:       arith.negf
// CHECK:           scf.condition
// CHECK-NOT:       layout.convert_layout
// CHECK-NOT:       arith.mulf
// CHECK:           scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    layout.store
func.func @dead_while_slot(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %x0 = layout.load %b : !G2 -> tensor<32x32xf32, #A>
    %d0 = layout.convert_layout %x0 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %sum, %dd, %n = scf.while (%acc = %zero, %d = %d0, %i = %c0) : (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index) {
      %go = arith.cmpi ult, %i, %c4 : index
      %dn = arith.negf %d : tensor<32x32xf32, #B>
      scf.condition(%go) %acc, %dn, %i : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index
    } do {
    ^bb1(%acc2: tensor<32x32xf32, #A>, %e: tensor<32x32xf32, #B>, %j: index):
      %t = layout.tile %a[%j, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
      %s = arith.addf %acc2, %x : tensor<32x32xf32, #A>
      %e2 = arith.mulf %e, %e : tensor<32x32xf32, #B>
      %j1 = arith.addi %j, %c1 : index
      scf.yield %s, %e2, %j1 : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// The dead value of an scf.while is carried by an scf.for in `after`: both lose it.
// CHECK-LABEL: func.func @dead_while_slot_nested
// CHECK-NOT:     layout.convert_layout
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>, index) ->
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>) {
// CHECK-NOT:         layout.convert_layout
// CHECK-NOT:         arith.mulf
// CHECK:             scf.yield
// CHECK:           scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    layout.store
func.func @dead_while_slot_nested(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %x0 = layout.load %b : !G2 -> tensor<32x32xf32, #A>
    %d0 = layout.convert_layout %x0 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %sum, %dd, %n = scf.while (%acc = %zero, %d = %d0, %i = %c0) : (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index) {
      %go = arith.cmpi ult, %i, %c2 : index
      scf.condition(%go) %acc, %d, %i : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index
    } do {
    ^bb1(%acc2: tensor<32x32xf32, #A>, %e: tensor<32x32xf32, #B>, %j: index):
      %s2, %e2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc3 = %acc2, %f = %e) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>) {
        %t = layout.tile %a[%k, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
        %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
        %s = arith.addf %acc3, %x : tensor<32x32xf32, #A>
        %f2 = arith.mulf %f, %f : tensor<32x32xf32, #B>
        scf.yield %s, %f2 : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>
      }
      %j1 = arith.addi %j, %c1 : index
      scf.yield %s2, %e2, %j1 : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// A value of an scf.while whose result is stored is live: it stays, with its conversion.
// CHECK-LABEL: func.func @live_while_slot
// CHECK:         layout.convert_layout
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) :
// CHECK:           arith.mulf
func.func @live_while_slot(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c = layout.view %r : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %x0 = layout.load %b : !G2 -> tensor<32x32xf32, #A>
    %d0 = layout.convert_layout %x0 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %sum, %dd, %n = scf.while (%acc = %zero, %d = %d0, %i = %c0) : (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index) -> (tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index) {
      %go = arith.cmpi ult, %i, %c4 : index
      scf.condition(%go) %acc, %d, %i : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index
    } do {
    ^bb1(%acc2: tensor<32x32xf32, #A>, %e: tensor<32x32xf32, #B>, %j: index):
      %t = layout.tile %a[%j, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
      %s = arith.addf %acc2, %x : tensor<32x32xf32, #A>
      %e2 = arith.mulf %e, %e : tensor<32x32xf32, #B>
      %j1 = arith.addi %j, %c1 : index
      scf.yield %s, %e2, %j1 : tensor<32x32xf32, #A>, tensor<32x32xf32, #B>, index
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
    layout.store %dd, %c : tensor<32x32xf32, #B>, !G2
  }
  func.return
}
