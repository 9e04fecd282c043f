/* lab_undo — taking a lab down by its state file (lab_undo.c). */
#ifndef FL_LAB_UNDO_H
#define FL_LAB_UNDO_H

/* Undoes everything the state file at path names, the caller holding its
 * lock (or making it); the file is removed once all of it is gone, kept
 * while something could not be removed (down can retry).  0, or -1 with
 * err (the first failure). */
int lab_down_locked(const char *path, char *err, size_t errlen);

#endif
