package workshop

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// startWatch watches the model's folder from now on.
func (s *Server) startWatch() (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", s.dir, err)
	}
	if err := w.Add(s.dir); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch %s: %w", s.dir, err)
	}
	return w, nil
}

// follow watches the model's folder, not the file: an editor that saves
// by writing a temporary file and renaming it over the model replaces the
// file a watch on it would hold, and the folder's events name the new one.
// Events of the model's name start a quiet period (Debounce); when it
// ends the file is read again, and a new version made only when its text
// changed.
func (s *Server) follow(ctx context.Context, w *fsnotify.Watcher) error {
	defer w.Close()
	// What was saved between the first read and the watch.
	if _, err := s.Reload(ctx); err != nil {
		fmt.Fprintf(s.o.Log, "reload: %v\n", err)
	}
	base := filepath.Base(s.o.Path)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if filepath.Base(ev.Name) != base || ev.Op == fsnotify.Chmod {
				continue
			}
			timer.Reset(s.o.Debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			fmt.Fprintf(s.o.Log, "watch: %v\n", err)
		case <-timer.C:
			if _, err := s.Reload(ctx); err != nil {
				// Between an editor's remove and its rename the file is
				// missing: the next event tries again.
				fmt.Fprintf(s.o.Log, "reload: %v\n", err)
			}
		}
	}
}
